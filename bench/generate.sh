#!/usr/bin/env bash
# Regenerates the peers in peers/ from the library's schema files, with the
# generators pinned by this module's go.mod (tool directives), so that every
# peer is the stock output of its generator and a change in it is a diff:
#
#   peers/plain/<pkg>         the encoding/json baseline (internal/plaingen)
#   peers/gojsonschema/<pkg>  github.com/atombender/go-jsonschema
#   peers/ogen/<pkg>          github.com/ogen-go/ogen/cmd/jschemagen
#
# Idempotent; needs no network once the module cache holds this module's
# requirements (go mod download).
set -euo pipefail
cd "$(dirname "$0")"

# package  Go type     schema file
peers=(
	"device      Device      core.device-1.0.json"
	"vehicle     Vehicle     core.vehicle-1.0.json"
	"association Association core.association-1.0.json"
	"event       Event       example.event-1.0.json"
)

rm -rf peers/plain peers/gojsonschema peers/ogen
for p in "${peers[@]}"; do
	read -r pkg typ file <<<"$p"
	schema=../schemas/$file
	id=$(sed -n 's/^  "\$id": "\(.*\)",$/\1/p' "$schema")
	if [ -z "$id" ]; then
		echo "generate.sh: no \$id found in $schema" >&2
		exit 1
	fi

	go run ./internal/plaingen -package "$pkg" -type "$typ" \
		-o "peers/plain/$pkg/${pkg}_gen.go" "$schema"

	# Only naming flags: the root type's name and Go's initialisms, so that
	# the benchmarks read alike; validation and struct tags are the defaults.
	mkdir -p "peers/gojsonschema/$pkg"
	go tool go-jsonschema --package "$pkg" \
		--schema-root-type "$id=$typ" \
		--capitalization ID,IMEI,ICCID,VIN \
		--output "peers/gojsonschema/$pkg/${pkg}_gen.go" "$schema" 2>&1 |
		sed "s|^|gojsonschema/$pkg: |" >&2

	# -allow-remote=false: the schemas have no remote $ref, and generating
	# must not depend on the network.
	go tool jschemagen -allow-remote=false -package "$pkg" -typename "$typ" \
		-target "peers/ogen/$pkg/${pkg}_gen.go" "$schema"
done
