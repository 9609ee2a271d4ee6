set encoding utf8
set terminal pngcairo size 1100,700 font "Sans,10"
set output "plot.png"
set title "end_boot_allocator(), Xen built from source, one node\nEXACT GUEST INSTRUCTION COUNTS (QEMU TCG, -icount shift=0): neither time on real hardware nor TCG time" noenhanced
set xlabel "guest memory (GiB, log scale)"
set ylabel "instructions a page (log scale)"
set logscale x 2
set logscale y 10
set grid
set key below maxcols 4 noenhanced
set xrange [0.714286:89.6]
$d0 << EOD
1 394.945
4 395.728
8 393.844
16 392.904
64 392.199
EOD
$d1 << EOD
1 32.0528
4 32.018
8 32.0094
16 32.005
64 32.0018
EOD
$d2 << EOD
1 54.052
4 54.0177
8 54.0092
16 54.005
64 54.0018
EOD
$d3 << EOD
1 8.53792
4 8.51249
8 8.50668
16 8.50378
64 8.50161
EOD
$d4 << EOD
1 58.0513
4 58.0175
8 58.0091
16 58.0049
64 58.0018
EOD
$d5 << EOD
1 379.414
4 379.283
8 379.14
16 379.067
64 379.013
EOD
$d6 << EOD
1 26.032
4 26.012
8 26.0064
16 26.0035
64 26.0015
EOD
$d7 << EOD
1 53.0314
4 53.0118
8 53.0063
16 53.0035
64 53.0015
EOD
$d8 << EOD
1 4.02286
4 4.00861
8 4.00447
16 4.00241
64 4.00092
EOD
plot $d0 using 1:2 with linespoints pt 7 lw 2 dt 1 lc rgb '#c00000' title "Xen 4.17 page", \
     $d1 using 1:2 with linespoints pt 7 lw 2 dt 1 lc rgb '#e08000' title "Xen 4.17 chunk-72b02bc", \
     $d2 using 1:2 with linespoints pt 7 lw 2 dt 1 lc rgb '#0050c0' title "Xen 4.17 chunk", \
     $d3 using 1:2 with linespoints pt 7 lw 2 dt 1 lc rgb '#008000' title "Xen 4.17 sweep", \
     $d4 using 1:2 with linespoints pt 7 lw 2 dt 1 lc rgb '#8000a0' title "Xen 4.17 chunk, without the series", \
     $d5 using 1:2 with linespoints pt 1 dt 3 lc rgb '#c00000' title "bootheap page", \
     $d6 using 1:2 with linespoints pt 1 dt 3 lc rgb '#e08000' title "bootheap chunk-72b02bc", \
     $d7 using 1:2 with linespoints pt 1 dt 3 lc rgb '#0050c0' title "bootheap chunk", \
     $d8 using 1:2 with linespoints pt 1 dt 3 lc rgb '#008000' title "bootheap sweep"
