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
1 46.8728
2 44.4323
4 44.5405
8 46.5446
16 45.4406
32 44.5939
64 45.1299
90 47.124
256 48.607
EOD
$s1 << EOD
1 4.14244
2 3.53404
4 3.6969
8 3.70584
16 3.83407
32 3.75331
64 3.94144
90 4.11012
256 3.9429
1024 3.95523
EOD
$s2 << EOD
1 2.47664
2 2.49062
4 2.41639
8 2.40142
16 2.44541
32 2.66206
64 2.53981
90 2.52399
256 2.57962
1024 2.64602
EOD
$s3 << EOD
1 2.69881
2 2.1436
4 1.46708
8 1.39542
16 2.07444
32 1.41013
64 1.44554
90 1.44682
256 1.30168
1024 1.48591
EOD
$s4 << EOD
1 0.00618763
2 0.00321118
4 0.00189031
8 0.000911575
16 0.000513209
32 0.00035289
64 0.000247668
90 0.000218544
256 0.000210443
1024 0.000282242
EOD
$s5 << EOD
1 13.9022
2 14.2128
4 14.2325
8 14.085
16 14.266
32 14.3355
64 14.6218
90 14.7436
EOD
$s6 << EOD
1 11.6465
2 10.6591
4 12.372
8 11.1533
16 10.7837
32 10.306
64 10.09
90 10.6943
EOD
$s7 << EOD
1 10.6486
2 9.97046
4 11.7223
8 10.5356
16 10.064
32 9.85394
64 9.80871
90 10.0477
EOD
$s8 << EOD
1 11.6719
2 11.5148
4 11.6087
8 11.478
16 11.617
32 11.7607
64 11.6801
90 11.9921
EOD
$s9 << EOD
1 12.1296
2 11.5938
4 11.564
8 11.7432
16 11.6894
32 11.7012
64 11.7357
90 12.0519
EOD
$s10 << EOD
1 1.37819
2 1.26365
4 1.26577
8 1.40179
16 1.5898
32 1.39722
64 1.40641
90 1.43203
256 1.2938
1024 1.46234
EOD
$s11 << EOD
1 2.72284
2 2.53043
4 2.57461
8 2.7493
16 3.05687
32 2.77326
64 2.78926
90 2.87648
EOD
$s12 << EOD
1 3.80495
2 3.4701
4 3.54749
8 3.80116
16 4.00908
32 3.77011
64 3.85008
90 3.97182
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
     $s2 using 1:2 with linespoints lw 2 pt 7 title "chunk-72b02bc", \
     $s3 using 1:2 with linespoints lw 2 pt 7 title "sweep", \
     $s4 using 1:2 with linespoints lw 2 pt 7 title "lazy", \
     $s5 using 1:2 with linespoints lw 2 pt 7 title "linux", \
     $s6 using 1:2 with linespoints lw 2 pt 7 title "linux_deferred (boot + deferred)", \
     $s7 using 1:2 with linespoints lw 2 pt 7 title "linux612 (boot + deferred)", \
     $s8 using 1:2 with linespoints lw 2 pt 7 title "freebsd_lazy (boot + drain)", \
     $s9 using 1:2 with linespoints lw 2 pt 7 title "freebsd_lazy0", \
     $s10 using 1:2 with linespoints lw 2 dt 2 lc rgb "black" pt 1 title "floor (memset of Xen's page_info)", \
     $s11 using 1:2 with linespoints lw 2 dt 2 lc rgb "#555555" pt 1 title "floor_linux (memset of Linux's struct page)", \
     $s12 using 1:2 with linespoints lw 2 dt 2 lc rgb "#999999" pt 1 title "floor_freebsd (memset of FreeBSD's vm_page)", \
     $x0 using 1:2 with points pt 8 ps 1.6 lc rgb "#666666" title "Xen v1 before (published)", \
     $x1 using 1:2 with points pt 10 ps 1.6 lc rgb "#666666" title "Xen v1 after (published)", \
     $x2 using 1:2 with points pt 9 ps 1.6 lc rgb "#666666" title "Xen v2 before (published)", \
     $x3 using 1:2 with points pt 11 ps 1.6 lc rgb "#666666" title "Xen v2 after (published)", \
     $x4 using 1:2 with points pt 12 ps 1.6 lc rgb "#666666" title "Xen Arm64 N1 before -> after (published)"
