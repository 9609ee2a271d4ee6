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
$d0 << EOD
1 374.937
2 374.954
4 374.951
8 373.456
16 372.71
32 372.337
64 372.15
EOD
$d1 << EOD
1 379.414
2 379.384
4 379.283
8 379.14
16 379.067
32 379.03
64 379.013
EOD
$d2 << EOD
1 245.738
2 245.837
4 246.14
8 246.573
16 246.794
32 246.905
64 246.959
EOD
$d3 << EOD
1 58.0523
2 58.0265
4 58.0177
8 58.0092
16 58.005
32 58.0029
64 58.0018
EOD
$d4 << EOD
1 53.0323
2 53.0166
4 53.0121
8 53.0064
16 53.0035
32 53.0021
64 53.0015
EOD
$d5 << EOD
1 31.0207
2 31.0107
4 31.0082
8 31.0044
16 31.0025
32 31.0015
64 31.0011
EOD
$d6 << EOD
1 4.02336
2 4.01191
4 4.00875
8 4.00454
16 4.00244
32 4.00139
64 4.00092
EOD
$d7 << EOD
1 4.00077
2 4.00039
4 4.00024
8 4.00012
16 4.00006
32 4.00003
64 4.00001
EOD
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
plot $d0 using 1:2 with linespoints pt 5 lw 2 lc rgb '#c00000' title "Xen 4.14 (real)", \
     $d1 using 1:2 with linespoints pt 4 dt 2 lc rgb '#c00000' title "page, xen_costs=all", \
     $d2 using 1:2 with linespoints pt 1 dt 3 lc rgb '#e08080' title "page, xen_costs=none", \
     $d3 using 1:2 with linespoints pt 7 lw 2 lc rgb '#0050c0' title "Xen 4.17 (real)", \
     $d4 using 1:2 with linespoints pt 6 dt 2 lc rgb '#0050c0' title "chunk, xen_costs=all", \
     $d5 using 1:2 with linespoints pt 2 dt 3 lc rgb '#80a0e0' title "chunk, xen_costs=none", \
     $d6 using 1:2 with linespoints pt 3 dt 4 lc rgb '#808000' title "sweep", \
     $d7 using 1:2 with linespoints pt 0 dt 5 lc rgb 'black' title "floor", \
     $d8 using 1:2 with linespoints pt 9 lw 2 lc rgb '#208020' title "Linux 6.1 memmap (real)", \
     $d9 using 1:2 with linespoints pt 9 lw 2 lc rgb '#60a060' title "Linux 6.1 memblock_free_all (real)", \
     $d10 using 1:2 with linespoints pt 9 lw 2 lc rgb '#004000' title "Linux 6.1 deferred (real)"
