package credfile_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/credfile"
)

// TestErrorsNameFilesOnOneLine: a file's name may hold a line break,
// which an error must not print as it is (a forged line of the log);
// an error opening the file still unwraps to the os package's.
func TestErrorsNameFilesOnOneLine(t *testing.T) {
	dir := t.TempDir()
	forged := filepath.Join(dir, "ca.pem\nlevel=INFO msg=\"all is well\"")
	require.NoError(t, os.WriteFile(forged, []byte("not a certificate\n"), 0o600))
	for name, call := range map[string]func() error{
		"CertPool":         func() error { _, err := credfile.CertPool(forged); return err },
		"KeyPair cert":     func() error { _, err := credfile.KeyPair(forged, forged); return err },
		"Read missing":     func() error { _, err := credfile.Read(forged + "\nmissing"); return err },
		"KeyPair missing":  func() error { _, err := credfile.KeyPair(forged+"\nmissing", forged); return err },
		"CertPool missing": func() error { _, err := credfile.CertPool(forged + "\nmissing"); return err },
	} {
		err := call()
		require.Error(t, err, name)
		assert.NotContains(t, err.Error(), "\n", name)
		assert.Contains(t, err.Error(), `ca.pem\x0alevel=INFO`, name)
		if strings.HasSuffix(name, "missing") {
			assert.ErrorIs(t, err, fs.ErrNotExist, name)
		}
	}
}
