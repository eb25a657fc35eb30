package ai

import "errors"

// Errors carry Redis-style text so that command handlers can reply with
// them as they are.
var (
	ErrNoNamespace  = errors.New("ERR no such namespace")
	ErrNoCache      = errors.New("ERR no such cache")
	ErrExists       = errors.New("ERR already exists")
	ErrDim          = errors.New("ERR vector dimension mismatch")
	ErrBadVector    = errors.New("ERR vector components must be finite numbers")
	ErrZeroVector   = errors.New("ERR zero vector cannot be compared with the COSINE metric")
	ErrThreshold    = errors.New("ERR distance threshold outside the metric's range (COSINE: 0..2, L2: >= 0)")
	ErrAttrs        = errors.New("ERR attributes must be a JSON object")
	ErrTooLarge     = errors.New("ERR entry too large")
	ErrImportance   = errors.New("ERR importance must be between 0 and 1")
	ErrWeights      = errors.New("ERR weights must be finite and non-negative")
	ErrConfigValue  = errors.New("ERR invalid configuration value")
	ErrMemoryKind   = errors.New("ERR memory kind must be WORKING, EPISODIC or SEMANTIC")
	ErrNeedsSession = errors.New("ERR WORKING memories need a SESSION")
)
