package query

import (
	"testing"

	"github.com/bitsieve/bitsieve/internal/apitest"
)

// TestAPI keeps the query package's exported surface in testdata/api.txt: it changes
// only on purpose, with -update (internal/apitest).
func TestAPI(t *testing.T) { apitest.Check(t) }
