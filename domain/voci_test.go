package domain

import "testing"

func TestVociMatchImporto(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		importo int64
		voci    []int64
		want    bool
	}{
		{"no_voci", 1001, nil, true},
		{"one_voce_equal", 1001, []int64{1001}, true},
		{"two_voci_sum", 1001, []int64{1000, 1}, true},
		{"sum_below", 1001, []int64{1000}, false},
		{"sum_above", 1001, []int64{1000, 2}, false},
		{"zero_voce_counts", 500, []int64{500, 0}, true},
		{"negative_voce", 500, []int64{600, -100}, false},
		{"overflow", 1, []int64{1<<63 - 1, 2}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := VociMatchImporto(c.importo, c.voci); got != c.want {
				t.Fatalf("VociMatchImporto(%d, %v) = %v, want %v", c.importo, c.voci, got, c.want)
			}
		})
	}
}
