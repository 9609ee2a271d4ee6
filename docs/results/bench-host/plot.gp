# SPDX-License-Identifier: MIT
# Written by harness/report/plot.py; rerun with: gnuplot plot.gp
set encoding utf8
set terminal pngcairo size 1100,700 font "Sans,10"
set output "plot.png"
set title "bootheap: boot memory to buddy heap, ns per page (init phase)\nhosted sizes by the runner's CPU time" noenhanced
set xlabel "guest memory (GiB, log scale)"
set ylabel "ns per page (log scale)"
set logscale x 2
set logscale y 10
set grid xtics ytics mytics
set xrange [0.714286:1433.6]
set xtics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64, "90" 90, "256" 256, "1024" 1024)
set key below maxcols 3 noenhanced
$s0 << EOD
1 50.5805
2 49.9041
4 50.5996
8 52.1178
16 52.4585
32 52.0245
64 53.2093
90 52.4038
256 55.595
EOD
$s1 << EOD
1 4.64084
2 4.44027
4 4.42365
8 4.53084
16 4.5888
32 4.60643
64 4.64314
90 4.67394
256 4.93866
1024 5.58885
EOD
$s2 << EOD
1 3.28421
2 2.92176
4 3.02092
8 2.9453
16 3.09036
32 3.00599
64 3.01283
90 3.01257
256 3.27685
1024 3.91945
EOD
$s3 << EOD
1 1.54781
2 1.42753
4 1.38639
8 1.45061
16 1.57103
32 1.43476
64 1.53747
90 1.44822
256 1.66875
1024 2.32516
EOD
$s4 << EOD
1 0.00837668
2 0.00425964
4 0.00207951
8 0.00116083
16 0.000650821
32 0.000409179
64 0.000286193
90 0.000233709
256 0.000295634
1024 0.000854763
EOD
$s5 << EOD
1 13.8222
2 14.1708
4 15.0022
8 14.3428
16 14.7107
32 14.7535
64 15.0366
90 15.1216
EOD
$s6 << EOD
1 13.8258
2 13.8252
4 13.7264
8 13.6075
16 13.0698
32 12.8846
64 13.1391
90 13.1554
EOD
$s7 << EOD
1 11.8444
2 11.6342
4 11.971
8 12.2674
16 12.5117
32 12.6684
64 12.5835
90 13.3241
EOD
$s8 << EOD
1 11.344
2 11.6749
4 11.7688
8 11.7339
16 12.1116
32 11.8939
64 12.0214
90 12.3113
EOD
$s9 << EOD
1 1.37076
2 1.34411
4 1.50119
8 1.38507
16 1.68155
32 1.42293
64 1.56474
90 1.4685
256 1.67525
1024 2.16304
EOD
$s10 << EOD
1 2.71586
2 2.76741
4 2.77828
8 2.81281
16 2.97663
32 2.88781
64 3.09913
90 2.95428
EOD
$s11 << EOD
1 3.56545
2 3.73059
4 3.78632
8 3.78853
16 3.90672
32 4.03684
64 4.27676
90 4.18137
EOD
$x0 << EOD
4 57.2205
8 59.1278
90 60.4418
EOD
$x1 << EOD
4 5.72205
8 5.72205
90 7.036
EOD
$x2 << EOD
4 59.1278
8 60.0815
90 61.2471
EOD
$x3 << EOD
4 3.8147
8 3.8147
90 4.06901
EOD
$x4 << EOD
32 140.667
32 7.51019
EOD
plot $s0 using 1:2 with linespoints lw 2 pt 7 title "page", \
     $s1 using 1:2 with linespoints lw 2 pt 7 title "chunk", \
     $s2 using 1:2 with linespoints lw 2 pt 7 title "chunk_72b02bc", \
     $s3 using 1:2 with linespoints lw 2 pt 7 title "once", \
     $s4 using 1:2 with linespoints lw 2 pt 7 title "lazy", \
     $s5 using 1:2 with linespoints lw 2 pt 7 title "linux", \
     $s6 using 1:2 with linespoints lw 2 pt 7 title "linux_deferred (boot + deferred)", \
     $s7 using 1:2 with linespoints lw 2 pt 7 title "freebsd", \
     $s8 using 1:2 with linespoints lw 2 pt 7 title "freebsd_lazy (boot + drain)", \
     $s9 using 1:2 with linespoints lw 2 dt 2 lc rgb "black" pt 1 title "floor (memset of Xen's page_info)", \
     $s10 using 1:2 with linespoints lw 2 dt 2 lc rgb "#555555" pt 1 title "floor_linux (memset of Linux's struct page)", \
     $s11 using 1:2 with linespoints lw 2 dt 2 lc rgb "#999999" pt 1 title "floor_freebsd (memset of FreeBSD's vm_page)", \
     $x0 using 1:2 with points pt 8 ps 1.6 lc rgb "#666666" title "Xen v1 before (published)", \
     $x1 using 1:2 with points pt 10 ps 1.6 lc rgb "#666666" title "Xen v1 after (published)", \
     $x2 using 1:2 with points pt 9 ps 1.6 lc rgb "#666666" title "Xen v2 before (published)", \
     $x3 using 1:2 with points pt 11 ps 1.6 lc rgb "#666666" title "Xen v2 after (published)", \
     $x4 using 1:2 with points pt 12 ps 1.6 lc rgb "#666666" title "Xen Arm64 N1 before -> after (published)"
