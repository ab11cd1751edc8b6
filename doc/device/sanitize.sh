# sanitize.sh (sourced after build.sh): sanitize CONFIG runs compute-sanitizer memcheck and racecheck
# on ./mcens CONFIG and prints each tool's status and summary; the full reports go to $out.
sanitize() {
  rm -f san-*.h5 san-*.h5.*
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 ./mcens -q -o "san-$tool.h5" "$1" > "$out/san-$tool.txt" 2>&1
    echo "sanitizer $tool: status $?: $(grep -h 'SUMMARY' "$out/san-$tool.txt" | sort | uniq -c | tr '\n' ' ')"; tail -2 "$out/san-$tool.txt"
  done
}
# sanitize_precisions TEMPLATE: the config TEMPLATE (printf format, one %s for the precision) in
# single and in double precision, each through sanitize; prints the tools' status lines.
sanitize_precisions() {
  local prec
  for prec in single double; do
    printf "$1" $prec > san.ini
    sanitize san.ini 2>&1 | grep "^sanitizer"
  done
}
