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
1 33.7209
2 33.3524
4 33.5216
8 34.1747
16 32.7036
32 32.7155
64 33.325
90 33.8705
256 34.29
1024 34.1705
EOD
$s1 << EOD
1 2.40292
2 2.3829
4 2.36159
8 2.37467
16 2.36139
32 2.34518
64 2.29231
90 2.40504
256 2.40031
1024 2.43171
EOD
$s2 << EOD
1 1.39335
2 1.47583
4 1.45302
8 1.43843
16 1.44761
32 1.44275
64 1.39187
90 1.45149
256 1.4528
1024 1.46922
EOD
$s3 << EOD
1 0.234324
2 0.239551
4 0.253697
8 0.690922
16 0.717891
32 0.727639
64 0.780616
90 0.789054
256 0.750509
1024 0.75347
EOD
$s4 << EOD
1 0.00599707
2 0.00385652
4 0.00239704
8 0.00134855
16 0.000874767
32 0.000434698
64 0.000440923
90 0.000354544
256 0.000239259
1024 0.000211643
EOD
$s5 << EOD
1 3.71161
2 4.05724
4 4.47627
8 4.62768
16 4.77047
32 4.81909
64 4.83524
90 4.78374
256 4.87728
EOD
$s6 << EOD
1 3.40745
2 3.72682
4 3.97469
8 3.98899
16 3.95124
32 3.92551
64 3.89958
90 3.93443
256 3.96958
EOD
$s7 << EOD
1 2.46261
2 2.83959
4 2.97991
8 2.7682
16 2.8675
32 2.89472
64 2.83029
90 2.8987
256 2.90875
EOD
$s8 << EOD
1 1.97549
2 2.62547
4 2.80714
8 2.82595
16 2.88046
32 2.88554
64 2.86826
90 2.91525
256 2.93569
EOD
$s9 << EOD
1 0.301433
2 0.619498
4 0.574358
8 0.758029
16 0.779372
32 0.736554
64 0.751249
90 0.733491
256 0.75737
1024 0.779626
EOD
$s10 << EOD
1 1.6241
2 1.35058
4 1.54713
8 1.48603
16 1.51145
32 1.49847
64 1.58723
90 1.52572
256 1.5815
EOD
$s11 << EOD
1 2.34744
2 2.19929
4 2.20891
8 2.07073
16 2.0909
32 2.04047
64 2.12386
90 2.11873
256 2.23743
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
