package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v5"
)

// decodeBodies are typical request bodies: a pendenza (the hot write), and
// an application with 200 entities per grant.
func decodeBodies() map[string]struct {
	body string
	into func() any
} {
	var domini []string
	for i := range 200 {
		domini = append(domini, fmt.Sprintf("%q", fmt.Sprintf("%011d", i)))
	}
	list := "[" + strings.Join(domini, ",") + "]"
	return map[string]struct {
		body string
		into func() any
	}{
		"pendenza": {`{"idTipoPendenza":"TARI","idDominio":"01234567890","causale":"Tassa rifiuti 2026",` +
			`"importo":123.45,"soggettoPagatore":{"tipo":"F","identificativo":"RSSMRA80A01H501U","anagrafica":"Mario Rossi","email":"mario@example.it"}}`,
			func() any { return new(pendenzaBody) }},
		"application_200_entities": {`{"principal":"app1","abilitato":true,"ruoli":[],"autorizzazioniApi":[` +
			`{"api":"PENDENZE","domini":` + list + `,"tipiPendenza":["*"]},{"api":"PAGAMENTO","domini":` + list + `,"tipiPendenza":["*"]}]}`,
			func() any { return new(applicazioneBody) }},
	}
}

// BenchmarkDecodeJSON measures the one shared request decoder on typical
// bodies (Content-Type check, size limit, strict decoding).
func BenchmarkDecodeJSON(b *testing.B) {
	s := &Server{cfg: Config{MaxBodyBytes: 1 << 20}}
	e := echo.New()
	for name, c := range decodeBodies() {
		b.Run(name, func(b *testing.B) {
			body := []byte(c.body)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPut, "/", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				ctx := e.NewContext(req, httptest.NewRecorder())
				if err := s.decodeJSON(ctx, c.into()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
