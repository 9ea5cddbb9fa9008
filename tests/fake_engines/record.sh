#!/bin/sh
# Runs an engine (the command after $1) with every line the harness sends it appended to the
# file $1, for the match tests that check what goes over the wire.
log=$1
shift
tee -a "$log" | "$@"
