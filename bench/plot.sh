#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bar chart (SVG) of one benchmark table: the median of each configuration
# with its min..max range as an error bar.
#
#   bench/plot.sh DATA.csv OUT.svg "title" "y label"
#
# DATA.csv: a header line, then "label,median,min,max" per bar (labels
# without commas). Documentation/data/*.csv hold the figures that
# Documentation/performance.md and performance-history.md report;
# `bench/plot.sh --all` redraws every
# Documentation/img/<name>.svg from Documentation/data/<name>.csv, taking the
# title and y label from the CSV's first two comment lines ("# title: ...",
# "# ylabel: ..."). Needs gnuplot (Debian: gnuplot-nox).
set -euo pipefail
cd "$(dirname "$0")/.."

plot() {
	local data=$1 out=$2 title=$3 ylabel=$4
	command -v gnuplot >/dev/null || { echo "plot: gnuplot missing (apt-get install gnuplot-nox)" >&2; return 1; }
	gnuplot <<-GP
	set terminal svg size 720,400 dynamic font "sans,12" background rgb "white"
	set output "$out"
	set datafile separator ","
	set title "$title"
	set ylabel "$ylabel"
	set style data histogram
	set style histogram errorbars gap 2 lw 1
	set style fill solid 0.6 border -1
	set boxwidth 0.8
	set yrange [0:*]
	set grid ytics
	set key off
	set rmargin 10
	set xtics rotate by -20 nomirror
	plot "$data" using 2:3:4:xtic(1) skip 1 linecolor rgb "#3465a4", \
	     "" using 0:(\$2/2):(sprintf("%.0f", \$2)) skip 1 with labels notitle
	GP
}

if [ "${1:-}" = --all ]; then
	for csv in Documentation/data/*.csv; do
		name=$(basename "$csv" .csv)
		title=$(sed -n 's/^# title: //p' "$csv")
		ylabel=$(sed -n 's/^# ylabel: //p' "$csv")
		grep -v '^#' "$csv" > "build/plot-$name.csv"
		plot "build/plot-$name.csv" "Documentation/img/$name.svg" "$title" "$ylabel"
		echo "Documentation/img/$name.svg"
	done
	exit 0
fi
[ $# -eq 4 ] || { sed -n '3,15p' "$0"; exit 2; }
plot "$@"
