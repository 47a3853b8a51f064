// SPDX-License-Identifier: Apache-2.0

package shardexpr

import "testing"

// shardCases were captured from kube-apiserver 1.36.3 with the
// ShardedListAndWatch feature gate on: each selector was sent as
// ?shardSelector= on a list of ConfigMaps, and the answer recorded as
// "ok: " and metadata.shardInfo.selector, or as the message of the 500
// Status less its "invalid shard selector: " prefix.
var shardCases = []struct{ in, want string }{
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`, `unsupported function "_&&_"; only shardRange() and || are allowed`},
	{`shardRange(object.metadata.uid, 0, 8)`, `hexStart must be a string literal, got int64`},
	{`shardRange(object.metadata.uid, 0u, 8)`, `hexStart must be a string literal, got uint64`},
	{`shardRange(object.metadata.uid, 1.5, 8)`, `hexStart must be a string literal, got float64`},
	{`shardRange(object.metadata.uid, true, 8)`, `hexStart must be a string literal, got bool`},
	{`shardRange(object.metadata.uid, null, 8)`, `hexStart must be a string literal, got structpb.NullValue`},
	{`shardRange(object.metadata.uid, b'0x', 8)`, `hexStart must be a string literal, got []uint8`},
	{`shardRange(object.metadata.uid, [1], 8)`, `hexStart must be a string literal (e.g. '0xff'), got expression kind 4`},
	{`shardRange(object.metadata.uid, {1:2}, 8)`, `hexStart must be a string literal (e.g. '0xff'), got expression kind 6`},
	{`shardRange(object.metadata.uid, hex(0), '0x8')`, `hexStart must be a string literal (e.g. '0xff'), got expression kind 1`},
	{`shardRange('x', '0x0000000000000000', '0x8000000000000000')`, `shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 5`},
	{`shardRange(object.metadata.name, '0x00', '0x80')`, `unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace`},
	{`shardRange(object.metadata.uid, '0x0')`, `shardRange() requires exactly 3 arguments, got 2`},
	{`object.metadata.uid > '0x0'`, `unsupported function "_>_"; only shardRange() and || are allowed`},
	{`object`, `unexpected expression kind 3; expected shardRange() call or || operator`},
	{`'abc'`, `unexpected expression kind 5; expected shardRange() call or || operator`},
	{`[1,2]`, `unexpected expression kind 4; expected shardRange() call or || operator`},
	{`object.metadata.uid.shardRange('0x0000000000000000', '0x8000000000000000')`, `shardRange() requires exactly 3 arguments, got 2`},
	{`shardRange(object.metadata.uid, "0x0000000000000000", "0x8000000000000000")`, `ok: shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`},
	{`(shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'))`, `ok: shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`},
	{`shardRange(object.metadata.uid, r'0x0000000000000000', '0x8000000000000000')`, `ok: shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`},
	{`shardRange(object.metadata.uid, '\x30x0000000000000000', '0x8000000000000000')`, `ok: shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`},
	{`shardRange(object.metadata.uid, '0X0000000000000000', '0x8000000000000000')`, `hexStart must have '0x' prefix, got "0X0000000000000000"`},
	{`shardRange(object.metadata.uid, '0x000000000000000A', '0x8000000000000000')`, `hexStart: invalid hex character "A" in "0x000000000000000A"`},
	{`shardRange(object.metadata.uid, '0x00000000000000000', '0x8000000000000000')`, `hexStart: 17-digit hex value must be '0x10000000000000000' (2^64), got "0x00000000000000000"`},
	{`shardRange(object.metadata.uid, '0x000000000000000000', '0x8000000000000000')`, `hexStart: hex value too long (18 chars, max 17): "000000000000000000"`},
	{`shardRange(object.metadata.uid, '0x', '0x8000000000000000')`, `hexStart: hex value is required after '0x'`},
	{`shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')`, `shard range start 0x8000000000000000 must be less than end 0x8000000000000000`},
	{`shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')`, `ok: shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')`, `all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"`},
	{`shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')`, `ok: shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')||shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')||shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000')`, `ok: shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000') || shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000')`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'`, `CEL parse error: Syntax error: missing ')' at '<EOF>'`},
	{`shardRange(object.metadata.uid, '0x0000000000000000, '0x8000000000000000')`, `CEL parse error: Syntax error: token recognition error at: '')'`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'))`, `CEL parse error: Syntax error: extraneous input ')' expecting <EOF>`},
	{`shardRange(object.metadata.uid,, '0x8000000000000000')`, `CEL parse error: Syntax error: extraneous input ',' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`shardRange`, `unexpected expression kind 3; expected shardRange() call or || operator`},
	{`shardRange()`, `shardRange() requires exactly 3 arguments, got 0`},
	{`foo bar`, `CEL parse error: Syntax error: extraneous input 'bar' expecting <EOF>`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') ||`, `CEL parse error: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`||`, `CEL parse error: Syntax error: mismatched input '||' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`shardRange(object.namespace.uid, '0x0000000000000000', '0x8000000000000000')`, `unsupported field path "object.namespace.uid"; supported: object.metadata.uid, object.metadata.namespace`},
	{`shardRange(a.as, '0x0000000000000000', '0x8000000000000000')`, `unsupported field path "a.as"; supported: object.metadata.uid, object.metadata.namespace`},
	{`shardRange(as.b, '0x0000000000000000', '0x8000000000000000')`, `CEL parse error: reserved identifier: as`},
	{`shardRange(.object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`, `unsupported field path ".object.metadata.uid"; supported: object.metadata.uid, object.metadata.namespace`},
	{`shardRange(object["metadata"], '0x0000000000000000', '0x8000000000000000')`, `shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 1`},
	{`!shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`, `unsupported function "!_"; only shardRange() and || are allowed`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') ? 1 : 2`, `unsupported function "_?_:_"; only shardRange() and || are allowed`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') in [1]`, `unsupported function "@in"; only shardRange() and || are allowed`},
	{`shardRange(object.metadata.uid, '0xffffffffffffffff', '0x0000000000000000')`, `shard range start 0xffffffffffffffff must be less than end 0x0000000000000000`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') # x`, `CEL parse error: Syntax error: token recognition error at: '#'`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') // comment`, `ok: shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`},
	{`shardRange(a b)`, `CEL parse error: Syntax error: extraneous input 'b' expecting ')'`},
	{`shardRange(a, b c)`, `CEL parse error: Syntax error: extraneous input 'c' expecting ')'`},
	{`foo bar baz`, `CEL parse error: Syntax error: mismatched input 'bar' expecting <EOF>`},
	{`foo)`, `CEL parse error: Syntax error: extraneous input ')' expecting <EOF>`},
	{`foo))`, `CEL parse error: Syntax error: mismatched input ')' expecting <EOF>`},
	{`(foo`, `CEL parse error: Syntax error: missing ')' at '<EOF>'`},
	{`shardRange(a,`, `CEL parse error: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`shardRange(`, `CEL parse error: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`shardRange(a,)`, `CEL parse error: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`, `CEL parse error: Syntax error: mismatched input 'shardRange' expecting <EOF>`},
	{`shardRange(object.metadata.uid '0x0000000000000000', '0x8000000000000000')`, `CEL parse error: Syntax error: mismatched input ''0x0000000000000000'' expecting ')'`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') |`, `CEL parse error: Syntax error: token recognition error at: '|'`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') | shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`, `CEL parse error: Syntax error: token recognition error at: '| '`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') OR shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`, `CEL parse error: Syntax error: mismatched input 'OR' expecting <EOF>`},
	{`shardRange(in, '0x0000000000000000', '0x8000000000000000')`, `CEL parse error: Syntax error: mismatched input 'in' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`shardRange(object.in, '0x0000000000000000', '0x8000000000000000')`, `CEL parse error: Syntax error: no viable alternative at input '.in'`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', `, `CEL parse error: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`shardRange(object.metadata.uid, '0x0000000000000000'`, `CEL parse error: Syntax error: missing ')' at '<EOF>'`},
	{`shardRange(object.metadata.uid, "0x0000000000000000`, `CEL parse error: Syntax error: token recognition error at: '"0x0000000000000000'`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')  && `, `CEL parse error: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`as(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`, `CEL parse error: reserved identifier: as`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000').x`, `unexpected expression kind 7; expected shardRange() call or || operator`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')[0]`, `unsupported function "_[_]"; only shardRange() and || are allowed`},
	{`1 + `, `CEL parse error: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`)`, `CEL parse error: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`,`, `CEL parse error: Syntax error: mismatched input ',' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`shardRange(object..uid, '0x0000000000000000', '0x8000000000000000')`, `CEL parse error: Syntax error: no viable alternative at input '..'`},
	{`shardRange(object.metadata.uid, '0x0000000000000000' '0x8000000000000000')`, `CEL parse error: Syntax error: extraneous input ''0x8000000000000000'' expecting ')'`},
	{`@`, `CEL parse error: Syntax error: token recognition error at: '@'`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') ; `, `CEL parse error: Syntax error: token recognition error at: ';'`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')`, `ok: shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')`},
	{`shardRange(object.metadata.uid, '0x10000000000000000', '0x10000000000000000')`, `shard range start 0x10000000000000000 must be less than end 0x10000000000000000`},
	{`shardRange(object.metadata.uid, -1, '0x10000000000000000')`, `hexStart must be a string literal, got int64`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '''0x10000000000000000''')`, `ok: shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')`},
	{`shardRange(object.metadata.uid, '\q', '0x10000000000000000')`, `CEL parse error: Syntax error: token recognition error at: ''\q'`},
	{`shardRange(object.metadata.uid, r'0x0000000000000000, '0x10000000000000000')`, `CEL parse error: Syntax error: token recognition error at: '')'`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000') = x`, `CEL parse error: Syntax error: token recognition error at: '= '`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000') || (shardRange(object.metadata.uid, '0x0000000000000000', '0x1000000000000000') || in)`, `CEL parse error: Syntax error: mismatched input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{"shardRange(object.`metadata`.uid, '0x0000000000000000', '0x10000000000000000')", "CEL parse error: unsupported syntax: '`'"},
	{`shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000') || foo(`, `CEL parse error: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
	{`shardRange(object.metadata.uid, '0x0000000000000000', 0x10)`, `hexEnd must be a string literal, got int64`},
	{` shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')  `, `ok: shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`},
	{"\t", `empty shard selector is not allowed; omit the parameter for unfiltered lists`},
}

func TestParseAsKubeAPIServer(t *testing.T) {
	for _, tc := range shardCases {
		sel, err := Parse(tc.in)
		got := "ok: " + sel.String()
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Parse(%q) = %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// FuzzParse: any text parses or is refused without a panic, and
// what parses is written back (as shardInfo echoes it) in a form that
// parses to the same selector.
func FuzzParse(f *testing.F) {
	for _, tc := range shardCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sel, err := Parse(in)
		if err != nil {
			return
		}
		again, err := Parse(sel.String())
		if err != nil || again.String() != sel.String() {
			t.Fatalf("Parse(%q) = %s, which parses to %s, %v", in, sel, again, err)
		}
	})
}
