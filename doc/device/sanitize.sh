# sanitize.sh (sourced after build.sh): sanitize CONFIG runs compute-sanitizer memcheck and racecheck
# on ./mcens CONFIG and prints each tool's status and summary; the full reports go to $out.
sanitize() {
  rm -f san-*.h5 san-*.h5.*
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 ./mcens -q -o "san-$tool.h5" "$1" > "$out/san-$tool.txt" 2>&1
    echo "sanitizer $tool: status $?: $(grep -h 'SUMMARY' "$out/san-$tool.txt" | sort | uniq -c | tr '\n' ' ')"; tail -2 "$out/san-$tool.txt"
  done
}
