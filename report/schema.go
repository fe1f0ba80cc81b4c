package report

import _ "embed" // for SchemaJSON

// SchemaJSON is the JSON contract of DESIGN.md as a JSON Schema (draft 2020-12): every
// object of the report with its required properties, types, nullability and enums. The
// project's tests validate every report they produce against it; script writers can do the
// same (the file is report/schema.json).
//
//go:embed schema.json
var SchemaJSON []byte
