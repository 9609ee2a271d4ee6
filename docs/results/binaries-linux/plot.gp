set encoding utf8
set terminal pngcairo size 1100,700 font "Sans,10"
set output "plot.png"
set title "Boot memory to the buddy heap: instructions a page handed over\nEXACT GUEST INSTRUCTION COUNTS (QEMU TCG, -icount shift=0): neither TCG time nor hardware time" noenhanced
set xlabel "guest memory (GiB, log scale)"
set ylabel "instructions a page (log scale)"
set logscale x 2
set logscale y 10
set grid
set key below maxcols 4 noenhanced
set xrange [0.714286:89.6]
$d8 << EOD
1 64.6089
2 64.6089
4 57.6402
8 57.6402
16 57.6402
32 57.6402
64 57.6402
EOD
$d9 << EOD
1 91.296
2 115.533
4 44.2729
8 54.1699
16 73.9621
32 113.549
64 192.721
EOD
$d10 << EOD
1 74.2989
2 73.7528
4 73.7799
8 73.3505
16 73.2351
32 73.19
64 73.1699
EOD
$d11 << EOD
1 47.5345
2 47.5345
4 38.7873
8 38.7873
16 38.7873
32 38.7873
64 38.7873
EOD
$d12 << EOD
1 49.0292
2 56.7401
4 36.1569
8 39.6424
16 46.6146
32 60.5606
64 88.4483
EOD
$d13 << EOD
1 47.4115
2 47.3035
4 47.3093
8 46.1951
16 46.047
32 45.9891
64 45.9632
EOD
plot $d8 using 1:2 with linespoints pt 9 lw 2 lc rgb '#208020' title "Linux 6.1 memmap (real)", \
     $d9 using 1:2 with linespoints pt 9 lw 2 lc rgb '#60a060' title "Linux 6.1 memblock_free_all (real)", \
     $d10 using 1:2 with linespoints pt 9 lw 2 lc rgb '#004000' title "Linux 6.1 deferred (real)", \
     $d11 using 1:2 with linespoints pt 11 lw 2 lc rgb '#208020' title "Linux 6.12 memmap (real)", \
     $d12 using 1:2 with linespoints pt 11 lw 2 lc rgb '#60a060' title "Linux 6.12 memblock_free_all (real)", \
     $d13 using 1:2 with linespoints pt 11 lw 2 lc rgb '#004000' title "Linux 6.12 deferred (real)"
