package httpapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/commands"
)

// strictJSON are the decoding options of every request body: on top of
// JSON v2's defaults (member names match exactly, a duplicate name and
// invalid UTF-8 are errors), an unknown member is an error too.
var strictJSON = json.JoinOptions(json.RejectUnknownMembers(true))

// decodeJSON reads exactly one JSON object into v, strictly: names match
// exactly, duplicate names, invalid UTF-8, unknown fields, wrong types,
// trailing data and nesting deeper than maxBodyDepth are rejected with the
// contract's 400, and a body over the size limit with 413 whatever it
// holds (it is read whole before it is decoded); never a 500 and never a
// silent choice. A body whose Content-Length says it is over the limit is
// refused before it is read.
func (s *Server) decodeJSON(c *echo.Context, v any) error {
	r := c.Request()
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return syntaxError("Content-Type must be application/json")
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		// Refused before a byte is read: closing the connection after the
		// answer keeps net/http from reading the body's rest first (it
		// would, to reuse a connection whose body left is small).
		c.Response().Header().Set(echo.HeaderConnection, "close")
		return tooLarge{}
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		return jsonError(err)
	}
	if nestsDeeper(body, maxBodyDepth) {
		return syntaxError(fmt.Sprintf("the body nests arrays and objects deeper than %d levels", maxBodyDepth))
	}
	if err := json.Unmarshal(body, v, strictJSON); err != nil {
		return jsonError(err)
	}
	if r, ok := v.(requiredFields); ok {
		return r.required()
	}
	return nil
}

// maxBodyDepth bounds how deeply a request body nests arrays and objects.
// A body's free JSON (a pendenza's datiAllegati, a voce's contabilita, a
// type's settings) is kept in the log a few levels deeper than the body
// held it, inside the commit and the event, and the log's decoders stop
// at 10,000 levels: a body nested near that would be a commit the read
// models could never apply. GovPay's own parser (Jackson) stops at 1,000.
const maxBodyDepth = 1000

// nestsDeeper reports whether the JSON text b nests arrays and objects
// deeper than max, counting brackets outside strings. It reads any bytes
// (invalid JSON the decoder refuses anyway) in one pass, allocating
// nothing.
func nestsDeeper(b []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, ch := range b {
		switch {
		case escaped:
			escaped = false
		case inString && ch == '\\':
			escaped = true
		case ch == '"':
			inString = !inString
		case inString:
		case ch == '[' || ch == '{':
			if depth++; depth > max {
				return true
			}
		case ch == ']' || ch == '}':
			depth--
		}
	}
	return false
}

// decodeAtMost reads the JSON array at d's next value one element at a
// time, with d's options, and refuses it with tooMany(max+1) at the
// element after the max-th, before that element is read: a bounded list
// costs at most max elements however long the body's array is, where a
// list decoded whole would build each of them (a 1 MiB body of {} is some
// 350,000). null is a nil list, [] an empty one, anything else the
// decoder's own error.
func decodeAtMost[T any](d *jsontext.Decoder, max int, tooMany func(n int) error) ([]T, error) {
	if d.PeekKind() != '[' {
		var list []T // null, or the wrong type the decoder reports
		err := json.UnmarshalDecode(d, &list)
		return list, err
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	list := []T{}
	for d.PeekKind() != ']' {
		if len(list) == max {
			return nil, tooMany(max + 1)
		}
		var v T
		if err := json.UnmarshalDecode(d, &v); err != nil {
			return nil, err
		}
		list = append(list, v)
	}
	_, err := d.ReadToken()
	return list, err
}

// boundedList is a body's JSON list of T that holds at most as many
// entries as B says, decoded one entry at a time (decodeAtMost) with the
// decoder's (strict) options and refused at the entry after the last one
// with B's 400 (the command's own where a command checks the list): 1 MiB
// of {} built whole would be some 350,000 entries, tens or hundreds of
// MiB of allocations, before the count was checked. It is documented as
// the array it is, not as a schema of its own.
type boundedList[T any, B listBound] []T

// listBound is a boundedList's bound: the most entries, and the 400 of a
// list of n entries, more than that.
type listBound interface {
	bound() (max int, tooMany func(n int) error)
}

// InlineJSONSchema documents the list as the array it is.
func (boundedList[T, B]) InlineJSONSchema() {}

// UnmarshalJSONFrom reads the list with the decoder's options.
func (l *boundedList[T, B]) UnmarshalJSONFrom(d *jsontext.Decoder) (err error) {
	var b B
	max, tooMany := b.bound()
	*l, err = decodeAtMost[T](d, max, tooMany)
	return err
}

// requiredFields is a body with members that must be present: required
// reports the first one missing (a 400), after the body decoded.
type requiredFields interface{ required() error }

// need is the check of one required member: absent (nil) is a 400, never
// a zero value.
func need[T any](name string, p *T) error {
	if p == nil {
		return syntaxError(name + " is required")
	}
	return nil
}

func jsonError(err error) error {
	var (
		mbe *http.MaxBytesError
		se  *json.SemanticError
		syn *jsontext.SyntacticError
		inv *commands.InvalidError
		bad *badRequest
	)
	switch {
	case errors.As(err, &inv): // a value a type's decoder checked, the command's own 400 (e.g. a boundedList's)
		return inv
	case errors.As(err, &bad): // a value the HTTP layer's decoder refused (e.g. patchOps)
		return bad
	case errors.As(err, &mbe):
		return tooLarge{}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF) && isEmptyInput(err):
		return syntaxError("the body is empty")
	case errors.As(err, &se) && errors.Is(se.Err, json.ErrUnknownName):
		return syntaxError(fmt.Sprintf("unknown field %q", string(se.JSONPointer.LastToken())))
	case errors.As(err, &se) && se.Err != nil && errors.As(se.Err, &syn):
		return syntaxError(fmt.Sprintf("malformed JSON at offset %d: %v", syn.ByteOffset, syn.Err))
	case errors.As(err, &se):
		return syntaxError(fmt.Sprintf("field %q has the wrong type or value", string(se.JSONPointer)))
	case errors.As(err, &syn):
		return syntaxError(fmt.Sprintf("malformed JSON at offset %d: %v", syn.ByteOffset, syn.Err))
	}
	return syntaxError("malformed JSON")
}

// isEmptyInput reports whether an unexpected EOF happened before any value.
func isEmptyInput(err error) bool {
	var syn *jsontext.SyntacticError
	return errors.As(err, &syn) && syn.ByteOffset == 0
}
