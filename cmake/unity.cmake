# Unity builds (docs/ci.md): with GATE_UNITY_BUILD, each target's sources are compiled in
# batches, one compiler run per batch, so the heavy headers (Asio, Beast, CAF, Boost.JSON,
# gtest) are parsed and their templates instantiated and optimized once per batch rather than
# once per file. CI's clean builds use it (.ci/run); it is off by default because an
# incremental build then recompiles a whole batch for one changed file.
#
# Names at namespace scope in a .cpp's anonymous namespace share the batch: two files that
# each define a file-local `t0` or `self_ptr` cannot be in one batch. Such files compile
# alone (SKIP_UNITY_BUILD_INCLUSION below); renaming one of the two helpers also does.
# Included from the top-level CMakeLists.txt after every target is defined.

if(NOT GATE_UNITY_BUILD)
  return()
endif()

# A file is left out of the batches of its target.
function(gate_unity_skip target)
  if(NOT TARGET ${target})
    return()
  endif()
  get_target_property(dir ${target} SOURCE_DIR)
  list(TRANSFORM ARGN PREPEND "${dir}/")
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target}
    PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

# config/: its calls of the file-local quoted() meet std::quoted by argument-dependent lookup
# wherever a file before them in the batch has included <iomanip>.
set_target_properties(gate_config PROPERTIES UNITY_BUILD OFF)
# transport/ and process/: few files (transport's over the Asio and Beast headers precompiled
# already, pch.hpp); one batch of them was slower than the files compiled side by side on two
# cores.
set_target_properties(gate_http gate_transport gate_redis gate_process PROPERTIES UNITY_BUILD OFF)

# What bridging.cpp was (skipped since its file-local helpers met their namesakes in a batch)
# is now upstream_traffic.cpp and call_streams.cpp, which keep such helpers too.
gate_unity_skip(gate_gateway mcp/upstream_traffic.cpp mcp/call_streams.cpp auth/token_endpoint.cpp)
# Every actor file but one names its actor pointer self_ptr.
gate_unity_skip(gate_actors sinks/audit.cpp bridging/bridge_keeper.cpp
  bridging/bridged_session_actor.cpp sinks/recorder.cpp sinks/span_sink.cpp
  federation/upstream_actor.cpp guards/breaker_actor.cpp)
gate_unity_skip(gate_hooks_core postgres_store.cpp)
gate_unity_skip(gate_hooks settings.cpp)
gate_unity_skip(gate_unit_tests unit/bridged_session_test.cpp unit/chain_test.cpp
  unit/circuit_breaker_test.cpp unit/config_test.cpp unit/deadline_table_test.cpp
  unit/discovery_containment_test.cpp unit/endpoint_rotation_test.cpp unit/federation_test.cpp
  unit/guard_lease_test.cpp unit/http_server_limits_test.cpp unit/idle_pool_test.cpp
  unit/jose_test.cpp unit/key_set_refresh_test.cpp unit/policy_memo_test.cpp unit/principal_windows_test.cpp
  unit/recording_test.cpp unit/redis_client_test.cpp unit/restart_intensity_test.cpp
  unit/session_shares_test.cpp unit/session_table_test.cpp unit/sliding_window_test.cpp
  unit/systemd_units_test.cpp unit/task_registry_test.cpp unit/token_request_test.cpp
  unit/upstream_guard_test.cpp unit/upstream_message_test.cpp)
gate_unity_skip(gate_actor_tests actors/ask_test.cpp actors/router_test.cpp)
gate_unity_skip(gate_hooks_tests hooks/retry_policy_test.cpp)
