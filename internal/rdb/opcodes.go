package rdb

// RDB file opcodes (Redis 8.0's rdb.h).
const (
	opSlotInfo      = 244
	opFunction2     = 245
	opFunctionPreGA = 246
	opModuleAux     = 247
	opIdle          = 248
	opFreq          = 249
	opAux           = 250
	opResizeDB      = 251
	opExpireTimeMS  = 252
	opExpireTime    = 253
	opSelectDB      = 254
	opEOF           = 255

	typeModulePreGA         = 6
	typeModule2             = 7
	typeHashMetadataPreGA   = 22
	typeHashListpackExPreGA = 23
)
