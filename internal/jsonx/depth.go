package jsonx

// MaxDepth is the deepest nesting codexrec parses with a recursive parser (gjson's
// validator recurses once per level): the proxy classifies a deeper line as not
// JSON (wire), readers take a deeper message as raw text. encoding/json and jq stop
// at the same depth.
const MaxDepth = 10000

// DeeperThan reports whether the objects and arrays of b (JSON text, valid or not)
// nest more than n levels. It never recurses and reads b once, skipping string
// bodies with bytes.IndexByte, so it is safe and cheap before a recursive parser.
func DeeperThan(b []byte, n int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i+1)
		case '{', '[':
			if depth++; depth > n {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// stringEnd is the index of the quote closing the string whose body starts at i
// (len(b) when unterminated): StringEnd, from the opening quote before i.
func stringEnd(b []byte, i int) int {
	if e := StringEnd(b, i-1); e >= 0 {
		return e - 1
	}
	return len(b)
}
