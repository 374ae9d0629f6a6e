package localblob

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames tmp to path unless path exists (fs.ErrExist).
func renameNoReplace(tmp, path string) error {
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE)
	if errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EINVAL) {
		return errUnimplemented
	}
	return err
}
