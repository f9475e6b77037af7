// Package durable holds what bitsieve's packages share to make a file
// change survive a crash: a file is written as NAME.tmp, fsynced and renamed,
// and then its directory is fsynced, so that the rename itself is on disk.
package durable

import (
	"fmt"
	"os"
)

// SyncDir fsyncs the directory dir, making the renames and removals done in
// it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
