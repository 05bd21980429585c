# SPDX-License-Identifier: MIT
# Plots of bench/run, from the tables it writes to its output directory:
#   gnuplot -e "dir='OUT'" bench/plot.gp
# slowdown.png: median wall time / --tool=none per configuration;
# compression.png: compression ratio of ParLoT and the compressors;
# bytes_per_mevent.png: trace bytes per million events.  Log scales.
set terminal pngcairo size 1100,600 noenhanced
set datafile separator "\t"
set datafile missing "-"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set grid ytics
set key outside right top
set xtics nomirror

set output dir.'/slowdown.png'
set title 'Wall time / --tool=none (median; ParLoT, Callgrind and native)'
plot for [c=2:*] dir.'/slowdown.dat' using c:xtic(1) title columnheader(c)

set output dir.'/compression.png'
set title 'Compression ratio of the call stream (raw 16-bit words / compressed bytes)'
plot for [c=2:*] dir.'/compression.dat' using c:xtic(1) title columnheader(c)

set output dir.'/bytes_per_mevent.png'
set title 'Trace file bytes per million events'
plot for [c=2:*] dir.'/bytes_per_mevent.dat' using c:xtic(1) title columnheader(c)
