package diff

// Tier is how much a schema change matters to a client.
type Tier int

const (
	TierInfo     Tier = iota // nothing a client relies on changes
	TierWarning              // may matter, depending on the client
	TierBreaking             // breaks a client that was correct before
)

var tierNames = [...]string{"info", "warning", "breaking"}

func (t Tier) String() string { return tierNames[t] }

// MarshalText writes the tier's name in JSON reports.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// ParseTier is the inverse of Tier.String.
func ParseTier(s string) (Tier, bool) {
	for i, n := range tierNames {
		if n == s {
			return Tier(i), true
		}
	}
	return 0, false
}

// shape is what changed in a schema, before the direction gives it a rule and tier.
type shape string

const (
	fieldRemoved         shape = "field-removed"
	requiredFieldRemoved shape = "required-field-removed"
	fieldAdded           shape = "field-added"
	requiredFieldAdded   shape = "required-field-added"
	nowRequired          shape = "field-now-required"
	nowOptional          shape = "field-now-optional"
	nullableAdded        shape = "nullable-added"
	nullableRemoved      shape = "nullable-removed"
	typeWidened          shape = "type-widened"
	typeNarrowed         shape = "type-narrowed"
	typeChanged          shape = "type-changed"
	enumAdded            shape = "enum-value-added"
	enumRemoved          shape = "enum-value-removed"
	variantAdded         shape = "variant-added"
	variantRemoved       shape = "variant-removed"
	constraintChanged    shape = "constraint-changed"
	defaultChanged       shape = "default-changed"
	refChanged           shape = "ref-changed"
)

// shapeTiers gives each shape's tier for what the client sends (requests, answers to
// server requests) and for what the server sends (results, notifications, server
// requests). A client's messages must keep validating against the new server; a
// client's handling of the server's messages must keep covering what can arrive.
var shapeTiers = map[shape][2]Tier{
	//                       client sends  server sends
	fieldRemoved:         {TierBreaking, TierWarning},
	requiredFieldRemoved: {TierBreaking, TierBreaking},
	fieldAdded:           {TierInfo, TierInfo},
	requiredFieldAdded:   {TierBreaking, TierInfo},
	nowRequired:          {TierBreaking, TierInfo},
	nowOptional:          {TierInfo, TierBreaking},
	nullableAdded:        {TierInfo, TierBreaking},
	nullableRemoved:      {TierBreaking, TierInfo},
	typeWidened:          {TierInfo, TierBreaking},
	typeNarrowed:         {TierBreaking, TierInfo},
	typeChanged:          {TierBreaking, TierBreaking},
	enumAdded:            {TierInfo, TierBreaking},
	enumRemoved:          {TierBreaking, TierInfo},
	variantAdded:         {TierInfo, TierBreaking},
	variantRemoved:       {TierBreaking, TierInfo},
	constraintChanged:    {TierWarning, TierWarning},
	defaultChanged:       {TierWarning, TierInfo},
	refChanged:           {TierInfo, TierInfo},
}

// ruleFor names the rule of a shape seen in a direction: request-* for what the client
// sends, response-* for what the server sends.
func ruleFor(s shape, u usage) (string, Tier) {
	t := shapeTiers[s]
	if u == usedByClient {
		return "request-" + string(s), t[0]
	}
	return "response-" + string(s), t[1]
}
