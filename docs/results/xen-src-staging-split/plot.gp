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
set xrange [0.714286:5.6]
$d2 << EOD
1 56.0573
4 56.0189
EOD
$d3 << EOD
1 8.54008
4 8.51296
EOD
plot $d2 using 1:2 with linespoints pt 9 lw 2 dt 2 lc rgb '#0050c0' title "Xen 4.23 chunk", \
     $d3 using 1:2 with linespoints pt 9 lw 2 dt 2 lc rgb '#008000' title "Xen 4.23 sweep"
