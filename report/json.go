package report

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// MarshalJSON writes the report with every nil list as [] (see filled).
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report // without this method
	return encodeJSON(filled(reflect.ValueOf(plain(r))).Interface())
}

// MarshalJSON writes a capture that could not be read as {"file", "error"} alone: none of
// its figures were measured, and a zero would read as a measurement. A readable capture has
// every nil list as [] (see filled).
func (c Capture) MarshalJSON() ([]byte, error) {
	type plain Capture // without this method
	if c.Error != "" {
		return encodeJSON(struct {
			File  string `json:"file"`
			Error string `json:"error"`
		}{c.File, c.Error})
	}
	return encodeJSON(filled(reflect.ValueOf(plain(c))).Interface())
}

// encodeJSON writes v as the outer encoder does: it keeps "->" in the findings as it is
// (json.Marshal would escape it to \u003e).
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// filled returns a copy of v in which every nil slice or map is an empty one, so that the
// JSON has [] (or {}) where the model holds nil: "a list is [] when empty, never null" is
// kept here, at the encoding, once for every list of the model, not by each place that
// builds one. Nil pointers stay nil: they are the figures that could not be measured.
// It copies rather than fills in place, so encoding a report never writes to it.
// A value of a type with its own MarshalJSON (other than v itself) is left to that method.
func filled(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Slice:
		n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			n.Index(i).Set(fillOne(v.Index(i)))
		}
		return n
	case reflect.Map:
		n := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			n.SetMapIndex(it.Key(), fillOne(it.Value()))
		}
		return n
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		n := reflect.New(v.Type().Elem())
		n.Elem().Set(fillOne(v.Elem()))
		return n
	case reflect.Struct:
		n := reflect.New(v.Type()).Elem()
		n.Set(v)
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n.Field(i).Set(fillOne(v.Field(i)))
			}
		}
		return n
	}
	return v
}

var marshaler = reflect.TypeFor[interface{ MarshalJSON() ([]byte, error) }]()

// fillOne fills a value inside the one being filled: one whose type encodes itself does
// its own filling.
func fillOne(v reflect.Value) reflect.Value {
	if v.Type().Implements(marshaler) {
		return v
	}
	return filled(v)
}
