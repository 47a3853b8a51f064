// SPDX-License-Identifier: Apache-2.0

package certs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// runDir keeps the certificates in a directory and serves what it holds
// until ctx is done: it reads the files, writes what [plan] decides, and
// sleeps until the next rotation.
func (c *Certs) runDir(ctx context.Context) error {
	var retry backoff
	for {
		wake, err := c.keepDir()
		if !c.wait(ctx, nil, &retry, wake, err) {
			return nil
		}
	}
}

// keepDir serves what the directory holds and writes what plan decides.
func (c *Certs) keepDir() (time.Time, error) {
	data, err := readDir(c.dir)
	if err != nil {
		return time.Time{}, err
	}
	c.load(data)
	out, what, wake, err := plan(time.Now(), data, c.pol)
	if err != nil || out == nil {
		return wake, err
	}
	if err := writeDir(c.dir, out); err != nil {
		return time.Time{}, err
	}
	c.log.Info("wrote webhook certificates", "what", what)
	c.load(out)
	return wake, nil
}

// readDir reads the four files; a missing one is empty.
func readDir(dir string) (map[string][]byte, error) {
	data := map[string][]byte{}
	for _, k := range []string{keyCABundle, keyCAKey, keyCert, keyKey} {
		b, err := os.ReadFile(filepath.Join(dir, k))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("read certificates: %w", err)
		default:
			data[k] = b
		}
	}
	return data, nil
}

// writeDir writes the files that differ, each to a temporary file
// renamed into place, the keys with mode 0600. The CAs go first, so that
// a process stopped halfway leaves a bundle that trusts what it will
// serve; plan repairs the rest at the next start.
func writeDir(dir string, data map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write certificates: %w", err)
	}
	old, err := readDir(dir)
	if err != nil {
		return err
	}
	for _, k := range []string{keyCABundle, keyCAKey, keyKey, keyCert} {
		if string(old[k]) == string(data[k]) {
			continue
		}
		mode := os.FileMode(0o644)
		if k == keyCAKey || k == keyKey {
			mode = 0o600
		}
		if err := writeFile(filepath.Join(dir, k), data[k], mode); err != nil {
			return fmt.Errorf("write certificates: %w", err)
		}
	}
	return nil
}

func writeFile(path string, b []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, nothing
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
