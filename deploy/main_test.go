package deploy

import (
	"os"
	"testing"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestMain removes the specwatch binary testharness.BuildSpecwatch built.
func TestMain(m *testing.M) { os.Exit(testharness.Main(m)) }
