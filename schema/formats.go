package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/codexrec/codexrec/internal/jsonschema"
)

// formats are the non-standard formats the Codex schemas use (from Rust's integer
// and float types), with their real ranges.
var formats = []*jsonschema.Format{
	intFormat("int8", math.MinInt8, math.MaxInt8),
	intFormat("int16", math.MinInt16, math.MaxInt16),
	intFormat("int32", math.MinInt32, math.MaxInt32),
	intFormat("int64", math.MinInt64, math.MaxInt64),
	uintFormat("uint8", math.MaxUint8),
	uintFormat("uint16", math.MaxUint16),
	uintFormat("uint32", math.MaxUint32),
	uintFormat("uint64", math.MaxUint64),
	uintFormat("uint", math.MaxUint64),
	{Name: "double", Validate: func(v any) error {
		n, ok := v.(json.Number)
		if !ok {
			return nil
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("out of range for a double")
		}
		return nil
	}},
}

func intFormat(name string, lo, hi int64) *jsonschema.Format {
	return &jsonschema.Format{Name: name, Validate: func(v any) error {
		n, ok := v.(json.Number)
		if !ok {
			return nil // only numbers have a range; "type" reports the rest
		}
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			if i < lo || i > hi {
				return fmt.Errorf("out of range [%d, %d]", lo, hi)
			}
			return nil
		}
		return bigRange(n, big.NewInt(lo), big.NewInt(hi))
	}}
}

func uintFormat(name string, hi uint64) *jsonschema.Format {
	return &jsonschema.Format{Name: name, Validate: func(v any) error {
		n, ok := v.(json.Number)
		if !ok {
			return nil
		}
		if u, err := strconv.ParseUint(string(n), 10, 64); err == nil {
			if u > hi {
				return fmt.Errorf("out of range [0, %d]", hi)
			}
			return nil
		}
		return bigRange(n, new(big.Int), new(big.Int).SetUint64(hi))
	}}
}

// bigRange checks numbers that do not fit 64 bits or are written as 1e3 or 2.0.
func bigRange(n json.Number, lo, hi *big.Int) error {
	f, _, err := big.ParseFloat(string(n), 10, 256, big.ToNearestEven)
	if err != nil {
		return fmt.Errorf("not a number")
	}
	if !f.IsInt() {
		return fmt.Errorf("not an integer")
	}
	i, _ := f.Int(nil)
	if i.Cmp(lo) < 0 || i.Cmp(hi) > 0 {
		return fmt.Errorf("out of range [%s, %s]", lo, hi)
	}
	return nil
}
