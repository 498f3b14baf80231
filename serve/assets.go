package serve

import _ "embed"

// The page: one HTML skeleton, one script and one style sheet, all served by the
// server itself (the CSP allows nothing else).
var (
	//go:embed assets/index.html
	indexHTML string
	//go:embed assets/app.js
	appJS string
	//go:embed assets/app.css
	appCSS string
)
