#!/usr/bin/env bash
# Counts, with instructions.sh, the instructions per operation behind the
# library README's table of scanning speed ("Faster scanning"): decoding,
# catalogue's and ogen's, and validate-only scanning, catalogue's, jx's
# and encoding/json's, each counted inside the function that does the
# work (see instructions.sh's INSIDE), but for the realistic messages'
# decodes, counted whole. Takes about 25 minutes; prints the counts.
#
# usage: ./scancounts.sh > instructions-scan.txt
#   go run ./cmd/ratio -base ogen -instructions instructions-scan.txt results-scan.txt
set -euo pipefail
cd "$(dirname "$0")"
inputs='realistic|meta1000|meta1000shuffled|tags1000|tags1000shuffled'
# The realistic messages' decodes whole, the collector included, as the
# README's first table counts them.
./instructions.sh 'Decode/schema=.*/input=realistic/impl=(catalogue|ogen)$' 20000
INSIDE='*.(*Vehicle).UnmarshalJSON' ./instructions.sh 'Decode$/^schema=vehicle$/^input=(meta1000|meta1000shuffled)$/^impl=(catalogue|ogen)$' 400
INSIDE='*.(*Association).UnmarshalJSON' ./instructions.sh 'Decode$/^schema=association$/^input=(tags1000|tags1000shuffled)$/^impl=(catalogue|ogen)$' 400
INSIDE='*.(*Vehicle).UnmarshalJSON' ./instructions.sh 'Decode$/^schema=vehicle$/^input=1MB$/^impl=(catalogue|ogen)$' 20
for impl in catalogue jx stdlib; do
	case $impl in
	catalogue) inside='github.com/fleetkit/catalogue/internal/jsontext.CheckCause' ;;
	jx) inside='github.com/go-faster/jx.(*Decoder).Validate' ;;
	stdlib) inside='encoding/json.Valid' ;;
	esac
	INSIDE=$inside ./instructions.sh "Scan\$/^schema=/^input=($inputs)\$/^impl=$impl\$" 200
	INSIDE=$inside ./instructions.sh "Scan\$/^schema=vehicle\$/^input=1MB\$/^impl=$impl\$" 10
done
