// SPDX-License-Identifier: Apache-2.0

package quantity

import (
	"math/big"
	"strconv"
	"strings"
)

// This file renders resource quantities ("500m", "1Gi", "2e3") in the
// canonical form the real server stores and prints them in: the largest
// suffix that keeps the number whole, in the suffix family the quantity
// was written in. kubetest stores quantities as written; the ResourceQuota
// rows print them canonically.

var (
	decimalSuffixes = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	binarySuffixes  = map[string]int{"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
	decimalNames    = map[int]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
	binaryNames     = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
)

// Canonical returns how the real server prints a quantity of a
// resource list: "0" for an empty one, the string as written when it is
// already in canonical form, else the value rounded up to milli units in
// canonical form; s itself when it does not parse.
func Canonical(s string) string {
	if s == "" || s == "0" {
		return "0"
	}
	q, ok := parseQuantity(s)
	if !ok {
		return s
	}
	if q.keep() {
		return s
	}
	// Resource lists are rounded up to milli units (away from zero).
	milli := new(big.Int).Set(q.nanos)
	if r := new(big.Int).Rem(milli, big.NewInt(1_000_000)); r.Sign() != 0 {
		milli.Sub(milli, r)
		milli.Add(milli, big.NewInt(int64(q.nanos.Sign())*1_000_000))
	}
	return formatQuantity(milli, q.family)
}

// quantity is a parsed quantity.
type quantity struct {
	// nanos is the value in nano units, rounded away from zero.
	nanos *big.Int
	// family is the suffix family: 'd'ecimal SI, 'b'inary SI or decimal
	// 'e'xponent.
	family byte
	// digits are the digits written, without sign and decimal point;
	// scale the power of ten they are in (decimal), exp the power of two
	// of the suffix (binary), frac the number of digits after the point.
	digits     string
	scale, exp int
	frac       int
}

// keep reports whether the server keeps the string as written: a decimal
// quantity whose digits neither start with 0 nor end in 000, at a power
// of ten that is a multiple of three from milli up, or a whole binary
// quantity that is not a multiple of 8 of its suffix.
func (q quantity) keep() bool {
	if len(q.digits) == 0 || len(q.digits) > 18 {
		return false
	}
	if q.family == 'b' {
		n, err := strconv.ParseInt(q.digits, 10, 64)
		return err == nil && q.frac == 0 && 15-len(q.digits)-q.exp*3/10-1 >= 0 && n&7 != 0
	}
	return q.scale >= -3 && q.scale%3 == 0 && q.digits[0] != '0' && !strings.HasSuffix(q.digits, "000")
}

// formatQuantity renders a value in nano units canonically in its family:
// the largest suffix that keeps the number whole (binary values below 1Ki
// or with a fraction print in decimal).
func formatQuantity(nanos *big.Int, family byte) string {
	if nanos.Sign() == 0 {
		return "0"
	}
	billion := big.NewInt(1_000_000_000)
	if family == 'b' {
		whole, rem := new(big.Int).QuoRem(nanos, billion, new(big.Int))
		if new(big.Int).Abs(whole).Cmp(big.NewInt(1024)) >= 0 && rem.Sign() == 0 {
			k := 0
			for k < len(binaryNames)-1 {
				q, r := new(big.Int).QuoRem(whole, big.NewInt(1024), new(big.Int))
				if r.Sign() != 0 {
					break
				}
				whole, k = q, k+1
			}
			return whole.String() + binaryNames[k]
		}
		family = 'd'
	}
	// Decimal: move factors of ten into the exponent, then back down to a
	// multiple of three.
	mant, exp := new(big.Int).Set(nanos), -9
	ten := big.NewInt(10)
	for {
		q, r := new(big.Int).QuoRem(mant, ten, new(big.Int))
		if r.Sign() != 0 {
			break
		}
		mant, exp = q, exp+1
	}
	for exp%3 != 0 {
		mant.Mul(mant, ten)
		exp--
	}
	if family == 'e' {
		if exp == 0 {
			return mant.String()
		}
		return mant.String() + "e" + strconv.Itoa(exp)
	}
	for exp > 18 {
		mant.Mul(mant, big.NewInt(1000))
		exp -= 3
	}
	return mant.String() + decimalNames[exp]
}

// parseQuantity reads a quantity: an optional sign, digits with an
// optional decimal point, and a suffix.
func parseQuantity(s string) (quantity, bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac = s[fs:i]
	}
	if intPart == "" && frac == "" {
		return quantity{}, false
	}
	q := quantity{digits: intPart + frac, frac: len(frac), family: 'd'}
	num, ok := new(big.Int).SetString(q.digits, 10)
	if !ok {
		return quantity{}, false
	}
	suffix := s[i:]
	switch e, isDec := decimalSuffixes[suffix]; {
	case isDec:
		q.scale = e - len(frac)
	case binarySuffixes[suffix] > 0:
		q.family, q.exp = 'b', 10*binarySuffixes[suffix]
		q.scale = -len(frac)
		num.Lsh(num, uint(q.exp))
	case len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E'):
		e, err := strconv.Atoi(suffix[1:])
		if err != nil || e > 1000 || e < -1000 {
			return quantity{}, false
		}
		q.family, q.scale = 'e', e-len(frac)
	default:
		return quantity{}, false
	}
	// Bring to nano units, rounding away from zero.
	if shift := q.scale + 9; shift >= 0 {
		num.Mul(num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
	} else {
		div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-shift)), nil)
		quo, rem := num.QuoRem(num, div, new(big.Int))
		if rem.Sign() != 0 {
			quo.Add(quo, big.NewInt(1))
		}
		num = quo
	}
	if neg {
		num.Neg(num)
	}
	q.nanos = num
	return q, true
}

// Format renders a JSON value given as a quantity (a string, or a
// number as the real server also accepts) canonically.
func Format(v any) string {
	switch x := v.(type) {
	case string:
		return Canonical(strings.TrimSpace(x))
	case float64:
		return Canonical(strconv.FormatFloat(x, 'f', -1, 64))
	case int64:
		return Canonical(strconv.FormatInt(x, 10))
	}
	return "0"
}
