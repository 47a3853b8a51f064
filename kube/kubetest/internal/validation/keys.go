// SPDX-License-Identifier: Apache-2.0

package validation

import "strings"

// ConfigMapKey returns what is wrong with key as a key of a ConfigMap's
// data or binaryData or a Secret's data, in the real server's words
// (validation.IsConfigMapKey): at most 253 characters of [-._a-zA-Z0-9],
// and neither ".", ".." nor starting with "..".
func ConfigMapKey(key string) []string {
	var errs []string
	if len(key) > 253 {
		errs = append(errs, maxLenError(253))
	}
	ok := key != ""
	for i := 0; i < len(key) && ok; i++ {
		c := key[i]
		ok = isAlnum(c) || c == '-' || c == '_' || c == '.'
	}
	if !ok {
		errs = append(errs, regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
			`[-._a-zA-Z0-9]+`, "key.name", "KEY_NAME", "key-name"))
	}
	switch {
	case key == ".":
		errs = append(errs, "must not be '.'")
	case key == "..":
		errs = append(errs, "must not be '..'")
	case strings.HasPrefix(key, ".."):
		errs = append(errs, "must not start with '..'")
	}
	return errs
}
