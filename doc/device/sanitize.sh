# sanitize.sh (sourced after build.sh): sanitize CONFIG [LABEL] runs compute-sanitizer on ./mcens
# CONFIG, each tool of SANITIZE_TOOLS (default: memcheck racecheck) stopped after SANITIZE_TIMEOUT s
# (default 600), and prints each tool's status and summary; the full reports go to $out
# (san-LABEL-TOOL.txt, or san-TOOL.txt).
sanitize() {
  local tool
  rm -f san-*.h5 san-*.h5.*
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
    timeout -k 5 "${SANITIZE_TIMEOUT:-600}" compute-sanitizer --tool $tool --error-exitcode 9 ./mcens -q -o "san-$tool.h5" "$1" > "$out/san-${2:+$2-}$tool.txt" 2>&1
    echo "sanitizer $tool: status $?: $(grep -h 'SUMMARY' "$out/san-${2:+$2-}$tool.txt" | sort | uniq -c | tr '\n' ' ')"; tail -2 "$out/san-${2:+$2-}$tool.txt"
  done
}
# sanitize_precisions TEMPLATE: the config TEMPLATE (printf format, one %s for the precision) in
# single and in double precision, each through sanitize; prints the tools' status lines, each
# after its precision.
sanitize_precisions() {
  local prec
  for prec in single double; do
    printf "$1" $prec > san.ini
    sanitize san.ini $prec 2>&1 | grep "^sanitizer" | sed "s/^/$prec: /"
  done
}
