// SPDX-License-Identifier: Apache-2.0

package shardexpr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
)

// Parse parses a shard selector as the real server does, with its
// error messages.
func Parse(expr string) (kube.ShardSelector, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return kube.ShardSelector{}, errors.New("empty shard selector is not allowed; omit the parameter for unfiltered lists")
	}
	root, err := parseCEL(expr)
	if err != nil {
		return kube.ShardSelector{}, fmt.Errorf("CEL parse error: %w", err)
	}
	var sel kube.ShardSelector
	if err := walkShard(root, &sel); err != nil {
		return kube.ShardSelector{}, err
	}
	return sel, nil
}

// walkShard accepts a shardRange call or a || of such, left to right, and
// appends each range to sel. All ranges must hash the same field.
func walkShard(e *celExpr, sel *kube.ShardSelector) error {
	if e.kind != celCall {
		return fmt.Errorf("unexpected expression kind %d; expected shardRange() call or || operator", e.kind)
	}
	switch e.fn {
	case "_||_":
		for _, a := range e.args {
			if err := walkShard(a, sel); err != nil {
				return err
			}
		}
		return nil
	case "shardRange":
	default:
		return fmt.Errorf("unsupported function %q; only shardRange() and || are allowed", e.fn)
	}
	if len(e.args) != 3 {
		return fmt.Errorf("shardRange() requires exactly 3 arguments, got %d", len(e.args))
	}
	path, err := fieldPath(e.args[0])
	if err != nil {
		return fmt.Errorf("shardRange() first argument: %w", err)
	}
	field := kube.ShardField(path)
	if field != kube.ShardByUID && field != kube.ShardByNamespace {
		return fmt.Errorf("unsupported field path %q; supported: object.metadata.uid, object.metadata.namespace", path)
	}
	start, startText, err := hexLiteral(e.args[1], "hexStart")
	if err != nil {
		return err
	}
	end, endText, err := hexLiteral(e.args[2], "hexEnd")
	if err != nil {
		return err
	}
	// 2^64 is the only 17-digit bound and reads as end 0.
	if startText == "0x10000000000000000" || endText != "0x10000000000000000" && end <= start {
		return fmt.Errorf("shard range start %s must be less than end %s", startText, endText)
	}
	if len(sel.Ranges) > 0 && sel.Field != field {
		return fmt.Errorf("all shard ranges must use the same field, got %q and %q", sel.Field, field)
	}
	sel.Field = field
	sel.Ranges = append(sel.Ranges, kube.HashRange{Start: start, End: end})
	return nil
}

// fieldPath reads a chain of selections (object.metadata.uid) back into
// its dotted text.
func fieldPath(e *celExpr) (string, error) {
	switch e.kind {
	case celIdent:
		return e.name, nil
	case celSelect:
		base, err := fieldPath(e.args[0])
		if err != nil {
			return "", err
		}
		return base + "." + e.name, nil
	}
	return "", fmt.Errorf("expected field path (e.g. object.metadata.uid), got expression kind %d", e.kind)
}

// hexLiteral reads a bound: a string literal of 0x and exactly 16
// lower-case hex digits, or 0x10000000000000000 (2^64, read as 0).
func hexLiteral(e *celExpr, name string) (uint64, string, error) {
	if e.kind != celLiteral {
		return 0, "", fmt.Errorf("%s must be a string literal (e.g. '0xff'), got expression kind %d", name, e.kind)
	}
	if e.literalType != "string" {
		return 0, "", fmt.Errorf("%s must be a string literal, got %s", name, e.literalType)
	}
	s := e.name
	if !strings.HasPrefix(s, "0x") {
		return 0, "", fmt.Errorf("%s must have '0x' prefix, got %q", name, s)
	}
	digits := s[2:]
	switch {
	case digits == "":
		return 0, "", fmt.Errorf("%s: hex value is required after '0x'", name)
	case len(digits) > 17:
		return 0, "", fmt.Errorf("%s: hex value too long (%d chars, max 17): %q", name, len(digits), digits)
	}
	var v uint64
	for _, c := range digits {
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		default:
			return 0, "", fmt.Errorf("%s: invalid hex character %q in %q", name, string(c), s)
		}
		v = v<<4 | d // a 17th digit shifts out: 2^64 reads as 0
	}
	switch {
	case len(digits) == 17 && s != "0x10000000000000000":
		return 0, "", fmt.Errorf("%s: 17-digit hex value must be '0x10000000000000000' (2^64), got %q", name, s)
	case len(digits) < 16:
		return 0, "", fmt.Errorf("%s must be a 0x-prefixed 16-digit hex value, got %q (did you mean %q?)",
			name, s, "0x"+strings.Repeat("0", 16-len(digits))+digits)
	}
	return v, s, nil
}
