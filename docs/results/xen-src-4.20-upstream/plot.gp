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
1 305.952
4 305.243
16 303.551
64 303.129
EOD
$d1 << EOD
1 31.0481
4 31.0154
16 31.0043
64 31.0016
EOD
$d2 << EOD
1 40.0478
4 40.0153
16 40.0043
64 40.0016
EOD
$d3 << EOD
1 8.5345
4 8.51089
16 8.50333
64 8.50145
EOD
$d4 << EOD
1 42.0474
4 42.0152
16 42.0043
64 42.0016
EOD
$d5 << EOD
1 379.414
4 379.283
16 379.067
64 379.013
EOD
$d6 << EOD
1 26.032
4 26.012
16 26.0035
64 26.0015
EOD
$d7 << EOD
1 53.0314
4 53.0118
16 53.0035
64 53.0015
EOD
$d8 << EOD
1 4.02287
4 4.00862
16 4.00241
64 4.00092
EOD
plot $d0 using 1:2 with linespoints pt 5 lw 2 dt 4 lc rgb '#c00000' title "Xen 4.20 page", \
     $d1 using 1:2 with linespoints pt 5 lw 2 dt 4 lc rgb '#e08000' title "Xen 4.20 chunk-72b02bc", \
     $d2 using 1:2 with linespoints pt 5 lw 2 dt 4 lc rgb '#0050c0' title "Xen 4.20 chunk", \
     $d3 using 1:2 with linespoints pt 5 lw 2 dt 4 lc rgb '#008000' title "Xen 4.20 sweep", \
     $d4 using 1:2 with linespoints pt 5 lw 2 dt 4 lc rgb '#8000a0' title "Xen 4.20 chunk, without the series", \
     $d5 using 1:2 with linespoints pt 1 dt 3 lc rgb '#c00000' title "bootheap page", \
     $d6 using 1:2 with linespoints pt 1 dt 3 lc rgb '#e08000' title "bootheap chunk-72b02bc", \
     $d7 using 1:2 with linespoints pt 1 dt 3 lc rgb '#0050c0' title "bootheap chunk", \
     $d8 using 1:2 with linespoints pt 1 dt 3 lc rgb '#008000' title "bootheap sweep"
