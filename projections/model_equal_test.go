package projections

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// modelDiff compares two read models field by field, every table, index,
// list and atomic value, without a list of what to compare: a field added
// to any model is compared too. It leaves out only what is not state: the
// locks, the maphash seeds, the notification channel, the
// publication counter, the random key, the verified-credential caches and
// the snapshot statistics served as metrics.
// Tables compare by content (not by layout), a missing map key equals an
// empty value (an emptied list is the same index as no list), and a
// pendenza's details compare by content, not by their place in the
// append-only details log (a replay keeps every version, a snapshot the
// last).
type modelDiff struct {
	got, want *ReadModel
	diffs     []string
}

var (
	ownershipType = reflect.TypeFor[ownership]()
	timeType      = reflect.TypeFor[time.Time]()
)

// skipped are the fields that hold no state (see modelDiff).
var skipped = map[string]bool{"macKey": true, "verified": true, "seq": true, "notify": true, "OnApplied": true, "details": true,
	"snapStats": true, "anyDescr": true} // anyDescr: a read shortcut, set once any description was ever put

func diffModels(got, want *ReadModel) []string {
	d := &modelDiff{got: got, want: want}
	d.eq("model", reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem())
	return d.diffs
}

func (d *modelDiff) errorf(format string, args ...any) {
	if len(d.diffs) < 20 {
		d.diffs = append(d.diffs, fmt.Sprintf(format, args...))
	}
}

// open returns v readable through Interface even if it was reached
// through unexported fields (test-only: nothing is written through it).
func open(v reflect.Value) reflect.Value {
	if v.CanAddr() && !v.CanInterface() {
		return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	return v
}

func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		return v.Len() == 0
	}
	return v.IsZero()
}

func (d *modelDiff) eq(path string, a, b reflect.Value) {
	a, b = open(a), open(b)
	t := a.Type()
	switch {
	case t.PkgPath() == "sync" || t.PkgPath() == "hash/maphash":
		return
	case t == timeType:
		if !a.Interface().(time.Time).Equal(b.Interface().(time.Time)) {
			d.errorf("%s: %v != %v", path, a.Interface(), b.Interface())
		}
		return
	case t == ownershipType:
		oa, ob := a.Interface().(ownership), b.Interface().(ownership)
		da, db := d.got.pendenze.details.at(oa.details), d.want.pendenze.details.at(ob.details)
		oa.details, ob.details = 0, 0
		d.fields(path, reflect.ValueOf(&oa).Elem(), reflect.ValueOf(&ob).Elem())
		d.eq(path+".details", reflect.ValueOf(&da).Elem(), reflect.ValueOf(&db).Elem())
		return
	case t.PkgPath() == "sync/atomic" && strings.HasPrefix(t.Name(), "Pointer["):
		elem := t.Field(0).Type.Elem().Elem() // the _ [0]*T field
		pa, pb := a.FieldByName("v").UnsafePointer(), b.FieldByName("v").UnsafePointer()
		if (pa == nil) != (pb == nil) {
			d.errorf("%s: nil and not nil", path)
		} else if pa != nil {
			d.eq(path, reflect.NewAt(elem, pa).Elem(), reflect.NewAt(elem, pb).Elem())
		}
		return
	case strings.HasPrefix(t.Name(), "table["):
		d.maps(path, tableContent(a), tableContent(b))
		return
	}
	switch t.Kind() {
	case reflect.Chan, reflect.Func:
	case reflect.Pointer:
		if a.IsNil() != b.IsNil() {
			d.errorf("%s: nil and not nil", path)
		} else if !a.IsNil() {
			d.eq(path, a.Elem(), b.Elem())
		}
	case reflect.Struct:
		d.fields(path, a, b)
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			d.errorf("%s: %d elements, want %d", path, a.Len(), b.Len())
			return
		}
		for i := range a.Len() {
			d.eq(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
		}
	case reflect.Map:
		d.maps(path, mapContent(a), mapContent(b))
	case reflect.Interface:
		if a.IsNil() != b.IsNil() {
			d.errorf("%s: nil and not nil", path)
		} else if !a.IsNil() {
			d.eq(path, a.Elem(), b.Elem())
		}
	default:
		if !a.Equal(b) {
			d.errorf("%s: %v != %v", path, a, b)
		}
	}
}

func (d *modelDiff) fields(path string, a, b reflect.Value) {
	t := a.Type()
	for i := range t.NumField() {
		if f := t.Field(i); !skipped[f.Name] && f.Name != "_" {
			d.eq(path+"."+f.Name, a.Field(i), b.Field(i))
		}
	}
}

func (d *modelDiff) maps(path string, a, b map[any]reflect.Value) {
	for k, va := range a {
		vb, ok := b[k]
		switch {
		case ok:
			d.eq(fmt.Sprintf("%s[%v]", path, k), va, vb)
		case !empty(va):
			d.errorf("%s[%v]: present, want absent", path, k)
		}
	}
	for k, vb := range b {
		if _, ok := a[k]; !ok && !empty(vb) {
			d.errorf("%s[%v]: absent, want present", path, k)
		}
	}
}

func mapContent(m reflect.Value) map[any]reflect.Value {
	out := map[any]reflect.Value{}
	for it := m.MapRange(); it.Next(); {
		out[it.Key().Interface()] = addressable(it.Value())
	}
	return out
}

// addressable returns a copy of v that open can read through: a map's
// values are not addressable, and without an address the unexported
// fields inside them (a unit scope's ids) could not be compared.
func addressable(v reflect.Value) reflect.Value {
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

// tableContent lists a table's entries (a table[V] value), through its
// map's own Range.
func tableContent(t reflect.Value) map[any]reflect.Value {
	out := map[any]reflect.Value{}
	rangeFn := open(t.FieldByName("m")).MethodByName("Range")
	each := reflect.MakeFunc(rangeFn.Type().In(0), func(args []reflect.Value) []reflect.Value {
		out[args[0].Interface()] = args[1]
		return []reflect.Value{reflect.ValueOf(true)}
	})
	rangeFn.Call([]reflect.Value{each})
	return out
}

func TestModelDiffSeesADifference(t *testing.T) {
	log := scriptedLog(t)
	a, b := New(), New()
	feedAll(t, a, log, 0, len(log))
	feedAll(t, b, log, 0, len(log))
	if d := diffModels(a, b); len(d) != 0 {
		t.Fatalf("two replays of one log differ: %v", d)
	}
	// A connector index entry only (what a restore once forgot).
	b.registry.byConnector.del("conn")
	if d := diffModels(a, b); len(d) != 1 || !strings.Contains(d[0], "byConnector[conn]") {
		t.Fatalf("a missing connector index entry: diff %v", d)
	}
	// A pendenza's state only, in the ownership table.
	c := New()
	feedAll(t, c, log, 0, len(log))
	c.pendenze.setStato("pagopa-portale", "anon1", statoCancelled)
	if d := diffModels(a, c); len(d) != 1 || !strings.Contains(d[0], "own[pagopa-portale/anon1]") {
		t.Fatalf("a pendenza's state: diff %v", d)
	}
}
