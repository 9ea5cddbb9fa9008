#!/bin/sh
# A misbehaving GTP engine for the match tests. Every command is answered "= ", except
# genmove, which does what the mode ($1) says:
#   illegal  answers A1 (never legal in the openings used)
#   garbage  answers something that is not a move
#   crash    exits without answering
#   hang     never answers
#   slow     answers after two seconds
mode=$1
while IFS= read -r line; do
  case "$line" in
    genmove*)
      case "$mode" in
        illegal) printf '= A1\n\n' ;;
        garbage) printf '= banana\n\n' ;;
        crash) exit 3 ;;
        hang) sleep 3600 ;;
        slow) sleep 2; printf '= A1\n\n' ;;
      esac ;;
    quit*) printf '= \n\n'; exit 0 ;;
    *) printf '= \n\n' ;;
  esac
done
