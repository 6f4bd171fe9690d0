// Package jsonlist makes the lists in a value encode as [] rather than null when empty, so
// every JSON answer of the API and the CLI shows an empty list the same way.
package jsonlist

import (
	"encoding/json"
	"reflect"
)

// Empty returns v with every nil list in it (at any depth) made empty, so a list
// answers [] rather than null. Values that encode themselves (a step, a locator) and byte
// slices are left as they are.
func Empty(v any) any {
	if v == nil {
		return nil
	}
	rv := reflect.New(reflect.TypeOf(v)).Elem()
	rv.Set(reflect.ValueOf(v))
	fillLists(rv)
	return rv.Interface()
}

var marshaler = reflect.TypeFor[json.Marshaler]()

// fillLists makes the nil lists in rv, which must be settable, empty. It writes into rv's own
// lists and maps: the answer is encoded once and then dropped, so nothing else sees it.
func fillLists(rv reflect.Value) {
	t := rv.Type()
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		return
	}
	switch rv.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return
		}
		if rv.IsNil() {
			rv.Set(reflect.MakeSlice(t, 0, 0))
		}
		for i := range rv.Len() {
			fillLists(rv.Index(i))
		}
	case reflect.Struct:
		for i := range rv.NumField() {
			if f := rv.Field(i); f.CanSet() {
				fillLists(f)
			}
		}
	case reflect.Pointer:
		if !rv.IsNil() {
			fillLists(rv.Elem())
		}
	case reflect.Map:
		iter := rv.MapRange()
		for iter.Next() {
			val := reflect.New(t.Elem()).Elem()
			val.Set(iter.Value())
			fillLists(val)
			rv.SetMapIndex(iter.Key(), val)
		}
	}
}
