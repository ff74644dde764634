#!/usr/bin/env bash
# The README's ways to use a local checkout of the library, run exactly as
# the README writes them: each shell block after a "<!-- local-checkout:"
# marker in README.md runs in a new module of its own, beside a link to
# this checkout named ../catalogue, as the README assumes; a small program
# importing the library must then build and run, and the README's Go
# code and nats/README.md's, in a package of that module
# (.ci/readme-go.txt), must build, the NATS and Kafka bindings, modules
# of their own, included. On a machine
# with only Go,
# the module proxy reachable and github.com/fleetkit/catalogue not
# published there, as a new user's is.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
readme="$repo/README.md"

# blocks prints the name of each marker and the shell block after it, as
# "NAME\tLINE" rows, one per command line.
blocks() {
	awk '
		/^<!-- local-checkout: / { name = $3; want = 1; next }
		want && /^```sh$/ { inside = 1; want = 0; next }
		inside && /^```$/ { inside = 0; name = ""; next }
		inside { print name "\t" $0 }
	' "$readme"
}

# snippets prints its standard input, .ci/readme-go.txt, with the N-th go
# block of the README $1, its import block left out, in place of the
# line "// $2 block N".
snippets() {
	awk -v name="$2" -v readme="$1" '
		FNR == NR {
			if ($0 == "```go") { n++; code[n] = ""; inside = 1; next }
			if (inside && $0 == "```") { inside = 0; next }
			if (!inside) next
			if ($0 == "import (") { imports = 1; next }
			if (imports) { if ($0 == ")") imports = 0; next }
			if ($0 ~ /^[ \t]*\/\/ \.\.\.$/) sub(/\/\/ \.\.\.$/, "_ = m // ...")
			code[n] = code[n] "\t" $0 "\n"
			next
		}
		$0 ~ "^\t// " name " block [0-9]+$" {
			k = $NF
			if (!(k in code)) { print "no go block " k " in " readme > "/dev/stderr"; exit 1 }
			printf "%s", code[k]; used[k] = 1; next
		}
		{ print }
		END {
			for (k = 1; k <= n; k++) if (!(k in used)) {
				print readme " go block " k " is not in .ci/readme-go.txt: add the code around it there" > "/dev/stderr"; exit 1
			}
		}
	' "$1" -
}

names=$(blocks | cut -f1 | uniq)
if [ -z "$names" ]; then
	echo "local-checkout: no <!-- local-checkout: NAME --> block in README.md"; exit 1
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# What a user's environment has: no workspace forced on or off.
unset GOWORK

for name in $names; do
	printf -- '-- %s\n' "$name"
	dir="$scratch/$name"
	mkdir -p "$dir/app/snippets"
	ln -s "$repo" "$dir/catalogue"
	cd "$dir/app"
	go mod init example.com/app >/dev/null 2>&1
	cat >main.go <<'GO'
// A program a new user writes first: build a message, validate it, encode
// it, and decode it back.
package main

import (
	"fmt"
	"log"
	"time"

	"github.com/fleetkit/catalogue/device"
	"github.com/google/uuid"
)

func main() {
	d := device.New()
	d.MessageID, d.DeviceID = uuid.New(), uuid.New()
	d.TenantID, d.SourceID, d.SourceType, d.ExternalID = "t1", "s1", "gps", "e1"
	d.Time = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if unset := d.Unset(); unset != nil {
		log.Fatalf("unset: %v", unset)
	}
	if err := d.Validate(); err != nil {
		log.Fatal(err)
	}
	data, err := d.AppendJSON(nil)
	if err != nil {
		log.Fatal(err)
	}
	back, err := device.Parse(data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back.SchemaName(), back.ExternalID)
}
GO
	snippets "$readme" README <"$repo/.ci/readme-go.txt" | snippets "$repo/nats/README.md" nats/README >snippets/snippets.go
	blocks | awk -F'\t' -v n="$name" '$1 == n { sub(/^[^\t]*\t/, ""); print }' >commands.sh
	echo "+ $(tr '\n' ';' <commands.sh)"
	bash -euo pipefail commands.sh
	go build -o app .
	go build ./snippets
	got=$(./app)
	if [ "$got" != "core.device e1" ]; then
		echo "local-checkout $name: the program printed $got, want core.device e1"; exit 1
	fi
	rm commands.sh
done
echo "local-checkout: every way the README gives works"
