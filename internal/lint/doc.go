// Package lint holds tests of the code base's shape rather than its
// behaviour: TestImportLayers checks the import graph against the layers
// docs/architecture.md draws.
package lint
