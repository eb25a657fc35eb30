package server

import (
	"fmt"
	"strings"

	"github.com/hotkv/hotkv/internal/value/vset"
)

// infoMemory is INFO's memory section, Redis's fields in its order, from the
// figures MEMORY STATS reports (memoryOverhead), then HotKV's own (the
// garbage collector's, named vector indexes). What HotKV has no counterpart
// for (cluster links, active defragmentation) is 0, as in a Redis without
// it; the lazy-free fields are internal/lazyfree's.
func (s *Server) infoMemory(b *strings.Builder, c *client) {
	cfg := s.Config()
	o := s.memoryOverhead(c)
	ms := &o.ms
	used, rss, peak := o.used, o.rss, o.peak
	scripts, libs, funcs, _ := s.scripts.Counts()
	vm := o.evalVM + o.functionsVM
	kv(b, "used_memory", used)
	kv(b, "used_memory_human", human(used))
	kv(b, "used_memory_rss", rss)
	kv(b, "used_memory_rss_human", human(rss))
	kv(b, "used_memory_peak", peak)
	kv(b, "used_memory_peak_human", human(peak))
	kv(b, "used_memory_peak_perc", fmt.Sprintf("%.2f%%", o.peakPerc()))
	kv(b, "used_memory_overhead", o.total)
	kv(b, "used_memory_startup", o.startup)
	kv(b, "used_memory_dataset", o.dataset)
	kv(b, "used_memory_dataset_perc", fmt.Sprintf("%.2f%%", o.datasetPerc()))
	kv(b, "allocator_allocated", o.allocated)
	kv(b, "allocator_active", o.active)
	kv(b, "allocator_resident", o.resident)
	kv(b, "allocator_muzzy", 0) // Go returns free pages to the OS at once (MADV_DONTNEED)
	kv(b, "total_system_memory", totalMemory())
	kv(b, "total_system_memory_human", human(totalMemory()))
	kv(b, "used_memory_lua", o.evalVM)
	kv(b, "used_memory_vm_eval", o.evalVM)
	kv(b, "used_memory_lua_human", human(o.evalVM))
	kv(b, "used_memory_scripts_eval", o.evalCache)
	kv(b, "number_of_cached_scripts", scripts)
	kv(b, "number_of_functions", funcs)
	kv(b, "number_of_libraries", libs)
	kv(b, "used_memory_vm_functions", o.functionsVM)
	kv(b, "used_memory_vm_total", vm)
	kv(b, "used_memory_vm_total_human", human(vm))
	kv(b, "used_memory_functions", o.functions)
	kv(b, "used_memory_scripts", o.evalCache+o.functions)
	kv(b, "used_memory_scripts_human", human(o.evalCache+o.functions))
	kv(b, "maxmemory", cfg.MaxMemory)
	kv(b, "maxmemory_human", human(uint64(cfg.MaxMemory)))
	kv(b, "maxmemory_policy", cfg.MaxMemoryPolicy)
	kv(b, "allocator_frag_ratio", fmt.Sprintf("%.2f", memRatio(o.active, o.allocated)))
	kv(b, "allocator_frag_bytes", max(memDiff(o.active, o.allocated), 0))
	kv(b, "allocator_rss_ratio", fmt.Sprintf("%.2f", memRatio(o.resident, o.active)))
	kv(b, "allocator_rss_bytes", memDiff(o.resident, o.active))
	kv(b, "rss_overhead_ratio", fmt.Sprintf("%.2f", memRatio(rss, o.resident)))
	kv(b, "rss_overhead_bytes", memDiff(rss, o.resident))
	kv(b, "mem_fragmentation_ratio", fmt.Sprintf("%.2f", memRatio(rss, used)))
	kv(b, "mem_fragmentation_bytes", memDiff(rss, used))
	kv(b, "mem_not_counted_for_evict", 0) // eviction counts the replication and AOF buffers too
	kv(b, "mem_replication_backlog", o.replBacklog)
	kv(b, "mem_total_replication_buffers", o.replBacklog+o.replClients)
	kv(b, "mem_replica_full_sync_buffer", 0) // a replica buffers nothing while it loads
	kv(b, "mem_clients_slaves", o.replClients)
	kv(b, "mem_clients_normal", o.clients)
	kv(b, "mem_cluster_links", 0)
	kv(b, "mem_aof_buffer", o.aofBuf)
	kv(b, "mem_allocator", "go")
	kv(b, "mem_overhead_db_hashtable_rehashing", 0) // tables grow at once, never rehash incrementally
	kv(b, "active_defrag_running", 0)               // the collector compacts nothing: nothing to defragment
	kv(b, "lazyfree_pending_objects", s.ks.Lazy.Pending())
	kv(b, "lazyfreed_objects", s.ks.Lazy.Freed())
	kv(b, "heap_sys", ms.HeapSys)
	kv(b, "heap_objects", ms.HeapObjects)
	kv(b, "gc_cycles", ms.NumGC)
	kv(b, "gc_cpu_fraction", fmt.Sprintf("%.6f", ms.GCCPUFraction))
	kv(b, "gc_pause_total_ms", ms.PauseTotalNs/1e6)
	kv(b, "gc_last_pause_us", ms.PauseNs[(ms.NumGC+255)%256]/1e3)
	// Named vector indexes (VSIM.CREATEINDEX); each vector set reports
	// its own memory in VINFO.
	nix, nvec, vbytes := s.reg.indexes.Stats()
	kv(b, "vector_indexes", nix)
	kv(b, "vector_index_vectors", nvec)
	kv(b, "vector_index_bytes", vbytes)
	kv(b, "vector_index_bytes_per_vector", vbytes/int64(max(nvec, 1)))
	// The dataset by family (docs/configuration.md, "Memory limit and
	// eviction"): what is not keys by its own accounting, the keys the
	// rest of the dataset.
	u, _ := s.reg.ai.Measure()
	aiBytes := u.Prompt + u.Sem + u.Memory
	kv(b, "used_memory_keys", max(int64(o.dataset)-vbytes-aiBytes, 0))
	kv(b, "used_memory_vector_sets", vset.LiveBytes())
	kv(b, "used_memory_vector_indexes", vbytes)
	kv(b, "used_memory_ai", aiBytes)
	kv(b, "used_memory_prompt_cache", u.Prompt)
	kv(b, "used_memory_semantic_cache", u.Sem)
	kv(b, "used_memory_agent_memory", u.Memory)
	kv(b, "used_memory_not_evictable", vbytes+u.Memory)
}
