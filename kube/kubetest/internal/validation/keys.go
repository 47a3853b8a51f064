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

// QualifiedName returns what is wrong with s as a qualified name (an
// optional DNS subdomain prefix and "/", then a name of at most 63
// characters), in the real server's words (validation.IsQualifiedName,
// which also says an empty name part does not match the pattern).
func QualifiedName(s string) []string {
	errs := labelKeyErrors(s)
	if i := strings.IndexByte(s, '/'); s[i+1:] == "" && strings.Count(s, "/") <= 1 {
		errs = append(errs, "name part "+regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
			qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}
