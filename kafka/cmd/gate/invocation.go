package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/fleetkit/catalogue/msg"
)

// The command's import path, and its module's.
const (
	importPath = "github.com/fleetkit/catalogue/kafka/cmd/gate"
	modulePath = "github.com/fleetkit/catalogue/kafka"
)

// self is how to run the command again from the working directory, for
// gate demo's hint: main sets it (invocation), and a test sets what the
// command it runs would have.
var self = "gate"

// goRunCache is the name of the folder of an executable that go run
// caches (its action id in hex, then -d).
var goRunCache = regexp.MustCompile(`^[0-9a-f]{64}-d$`)

// invocation returns how to run this command again from the folder dir,
// given the name it was run by (os.Args[0]) and its module's version
// ("(devel)" or "" for a checkout): that name as typed (./gate, or gate
// from the PATH), shell-quoted where it must be; or, for an executable
// that go run built in a temporary folder (go-build...) or in the build
// cache, the go run line that builds it again there: go run ./cmd/gate
// in its module's folder, its import path elsewhere (at its version when
// it has one). A user told "gate -brokers ..." by a demonstration run
// with go run, as the README runs it, has no gate to run.
func invocation(arg0, dir, version string) string {
	built := false
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(arg0)), "/") {
		if strings.HasPrefix(part, "go-build") || goRunCache.MatchString(part) {
			built = true
		}
	}
	if !built || !filepath.IsAbs(arg0) {
		return msg.Escape(shellQuote(arg0))
	}
	if version == "" || version == "(devel)" {
		if mod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && moduleOf(mod) == modulePath {
			return "go run ." + strings.TrimPrefix(importPath, modulePath)
		}
		return "go run " + importPath
	}
	return "go run " + importPath + "@" + msg.Escape(shellQuote(version))
}

// moduleOf returns the module path a go.mod declares.
func moduleOf(mod []byte) string {
	for line := range bytes.Lines(mod) {
		if rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("module")); ok {
			return strings.Trim(string(bytes.TrimSpace(rest)), `"`)
		}
	}
	return ""
}

// shellQuote returns s as a POSIX shell reads it back: as it is when it
// holds only characters no shell treats specially, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+=:@,%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// moduleVersion returns the version of the module the command was built
// from, "(devel)" for a checkout.
func moduleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		return info.Main.Version
	}
	return ""
}
