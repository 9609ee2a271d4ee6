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
1 50.2828
2 49.539
4 49.6194
8 47.353
16 46.4743
32 46.8798
64 53.6938
90 46.521
256 49.63
EOD
$s1 << EOD
1 4.53445
2 4.46868
4 3.95683
8 4.11199
16 3.86426
32 3.86642
64 4.00646
90 4.25557
256 4.42845
1024 5.0879
EOD
$s2 << EOD
1 2.84416
2 2.67685
4 2.17915
8 2.59003
16 2.49328
32 2.4078
64 2.61159
90 2.65978
256 2.91006
1024 3.25146
EOD
$s3 << EOD
1 1.47271
2 1.3974
4 2.13953
8 1.36944
16 1.47292
32 1.36362
64 1.36529
90 1.40854
256 1.44193
1024 1.77889
EOD
$s4 << EOD
1 0.00712844
2 0.00377881
4 0.00180516
8 0.000984661
16 0.000565005
32 0.000346886
64 0.000249357
90 0.000219967
256 0.00023425
1024 0.000316137
EOD
$s5 << EOD
1 14.5987
2 14.8775
4 14.5927
8 14.9619
16 14.8007
32 14.6293
64 14.7734
90 14.3605
EOD
$s6 << EOD
1 11.7766
2 11.0915
4 12.649
8 11.7957
16 11.1897
32 10.7657
64 10.5228
90 10.746
EOD
$s7 << EOD
1 11.5683
2 10.6738
4 12.7643
8 11.2324
16 10.6844
32 10.1257
64 10.0462
90 10.2317
EOD
$s8 << EOD
1 11.6941
2 12.0363
4 12.0348
8 12.3734
16 12.1543
32 12.1267
64 12.1824
90 12.415
EOD
$s9 << EOD
1 12.5342
2 11.9776
4 11.935
8 12.2847
16 12.7937
32 12.1515
64 12.3567
90 12.5338
EOD
$s10 << EOD
1 1.38947
2 1.3645
4 1.36026
8 1.35903
16 1.52707
32 1.37762
64 1.36137
90 1.41237
256 1.4304
1024 1.78391
EOD
$s11 << EOD
1 2.71752
2 2.70785
4 2.7169
8 2.61889
16 2.77818
32 2.73476
64 2.69435
90 2.85982
EOD
$s12 << EOD
1 3.79602
2 3.714
4 3.73083
8 3.72357
16 3.79468
32 3.78202
64 3.74118
90 3.99594
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
