#!/usr/bin/env python3
"""Every producer of what gate sends a client, and the judge it passes (issue 47, "one judge
toward a client"; docs/security.md, "Toward a client").

A message reaches a client through one of a few writers: a queue its event stream is written
from (message_queue::push: a POST's stream, a parked or resumed call's, a listen's), a session's
GET stream (session_table::deliver and broadcast), a listen (listen_hub::deliver, offer,
fill_place), a call's sinks (request_context::server_message, push_to_client), and the raw
writers of an event stream (format_sse, write_event_chunk, a chunk written by hand). This script
finds every call of a writer under gateway/, by the writer's name on any receiver, and names the
function that makes it; each such producer must be listed in PRODUCERS below, with the judge
its messages pass (pipeline::client_bound for results and input requests, the policy and the
hook for upstreams' requests, or why none applies: gate's own words), or in ALLOWED with why it
makes no new message for a client (a stream's drain of what listed producers queued; a deliver
toward an upstream). Where the judge is on the producer's own path, `calls` names what its body
must call, and the check fails if it does not. JUDGING lists where the judge is asked on a path
(stage 8, the task methods, an upstream's request on a stream), each of which must call it. A
writer called from a function not listed fails the check: a new path to a client is a new row
here, and a reviewer reads its judge.

Run from the repository's root (ctest runs it, and `--self-test`, which shows that a new,
unlisted call of each writer's spelling is found). Exit status 1 on any finding.
"""
import importlib.util
import os
import re
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('check_sizes', os.path.join(here, 'check-sizes.py'))
sizes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sizes)

# Matched by the writer's name on any receiver (`x.push(`, `to_->broadcast(`), so a renamed
# variable or a new holder of a writer is still found; the raw writers of an event stream
# (format_sse, write_event_chunk, a chunk written by hand) by their own names.
RECEIVER = r'(?:->|\.)\s*'
WRITERS = {
    'message_queue::push': RECEIVER + r'push\s*\(',
    'a deliver (session_table, listen_hub, session_delivery, request_sender)':
        RECEIVER + r'deliver\w*\s*\(',
    'a broadcast (session_table, list_changed_feed::audience)': RECEIVER + r'broadcast\s*\(',
    'listen_hub::offer, fill_place': RECEIVER + r'(?:offer|fill_place)\s*\(',
    'request_context::push_to_client': r'\bpush_to_client\s*\(',
    'request_context::server_message': r'\bserver_message\s*\(',
    'format_sse (an event stream frame)': r'\bformat_sse\s*\(',
    'write_event_chunk (an event stream write)': r'\bwrite_event_chunk\s*\(',
    'a chunk written by hand (make_chunk)': r'\bmake_chunk\s*\(',
}

# (file, function): (what its body must call, or None; the judge its messages pass).
PRODUCERS = {
    ('gateway/mcp/account_logins.cpp', 'account_logins::send_to_login'):
        (None, "gate's own URL elicitation of a user-account login and its completion "
         "notification: gate's link and words, no upstream content (and the vault's offer, "
         'not a listen)'),
    ('gateway/mcp/downstream_sessions.cpp', 'downstream_sessions::broadcast'):
        (None, "gate's own list_changed notification (a method, no upstream content)"),
    ('gateway/mcp/list_changed_feed.cpp', 'list_changed_feed::announce'):
        (None, "gate's own list_changed notification (a method, no upstream content), "
         'to downstream_sessions::broadcast'),
    ('gateway/mcp/upstream_traffic.cpp', 'upstream_traffic::resource_updated'):
        (None, 'a resource update, to the holders subscribed (policy and hook at subscribe)'),
    ('gateway/mcp/upstream_traffic.cpp', 'upstream_traffic::on_message'):
        (r'admit_server_request\(.*hook_asks\(', 'policy for server requests, hook serverRequest'),
    ('gateway/mcp/call_streams.cpp', 'call_writer::push'):
        (None, "a POST's stream writer, reached only from call_streams::streamed"),
    ('gateway/mcp/call_streams.cpp', 'call_streams::streamed'):
        (r'\bstart\(.*\bresume\(', 'the answer: the stages (stage 8, client_bound); messages: '
         'bridged_call'),
    ('gateway/mcp/call_streams.cpp', 'call_streams::parked'):
        (r'\brun\(', 'the answer: the stages (stage 8, client_bound); messages: bridged_call'),
    ('gateway/mcp/client_requests.cpp', 'client_requests::ask_client_input'):
        (None, 'an input request bridged_call::ask_client admitted (policy, hook serverRequest)'),
    ('gateway/mcp/parked_fleet.cpp', 'take_pieces'):
        (None, "what the owning instance's parked call said, judged there as here"),
    ('gateway/mcp/parked_fleet.cpp', 'follow_output'):
        (None, "gate's own error: the owner stopped telling"),
    ('gateway/mcp/upstream_calls.cpp', 'upstream_calls::bridged_call::message'):
        (r'admit_server_request\(.*hook_asks\(', 'policy for server requests, hook serverRequest'),
    ('gateway/mcp/listen_hub.cpp', 'listen_hub::offer'):
        (None, "the listen's writer, reached from deliver and deliver_to_all"),
    ('gateway/mcp/listen_hub.cpp', 'listen_hub::close_all'):
        (None, "gate's own end of a listen"),
    ('gateway/mcp/listen_methods.cpp', 'listen_methods::task_news'):
        (r'current_view\(\).*listener_asking_after\(.*judge_\.result_hook\(.*'
         r'judge_\.judges_input\(', 'client_bound on the current view: '
         'unjudged only when nothing judges the task'),
    ('gateway/mcp/listen_methods.cpp', 'listen_methods::pass_judged_task_news'):
        (r'judge_\.judge_task\(', 'client_bound::judge_task (result, input requests)'),
}

# Calls of a writer's name that make no new message for a client: each with why. A stream's
# drain writes only what a listed producer queued (and gate's own keep-alive or ack); a deliver
# toward an upstream carries a client's message the other way (the upstream-bound checks).
ALLOWED = {
    ('gateway/mcp/call_streams.cpp', 'write_frames'):
        "a POST's stream drain: the frames call_streams::streamed and parked queued",
    ('gateway/mcp/modern_answer.cpp', 'answer_modern'):
        "a 2026-07-28 call's drain: frames its producers queued, the answer from stage 8, "
        'an input_required of requests bridged_call::message admitted',
    ('gateway/mcp/session_streams.cpp', 'session_streams::get'):
        "a session's GET stream drain: session_table's outbox (its producers above), "
        "and gate's own keep-alive comment",
    ('gateway/mcp/listen_methods.cpp', 'stream_listen'):
        "a listen's drain: the queue listen_hub's producers fill",
    ('gateway/mcp/listen_methods.cpp', 'listen_methods::listen'):
        "gate's own subscriptions/acknowledged, naming the filter it honoured",
    ('gateway/upstream/request_sender.hpp', 'request_sender::deliver'):
        'toward an upstream: a client\'s notification or answer',
    ('gateway/upstream/request_sender.hpp', 'request_sender::deliver_to'):
        'toward an upstream: a client\'s answer, on a session another instance holds',
    ('gateway/upstream/upstream_client.cpp', 'upstream_client::session_traffic::message'):
        "toward an upstream: gate's own error for a request no client can be asked",
    ('gateway/mcp/fleet_sessions.cpp', 'fleet_sessions::answer_for_fleet'):
        "toward an upstream: a client's answer relayed for another instance",
    ('gateway/mcp/client_traffic.cpp', 'client_traffic::answer_upstream'):
        "toward an upstream: a client's answer to its request",
    ('gateway/mcp/client_traffic.cpp', 'client_traffic::from_client'):
        "toward an upstream: a client's roots/list_changed",
    ('gateway/mcp/parked_inputs.cpp', 'parked_inputs::answer_upstream'):
        "toward an upstream: a client's answers to a parked call's input requests",
    ('gateway/mcp/upstream_traffic.cpp', 'answer_upstream'):
        "toward an upstream: gate's answer to its request",
}

# Where the judge is asked: stage 8, the task methods, an upstream's request on a stream.
JUDGING = {
    ('gateway/pipeline/s8_egress.cpp', 'egress::run'): r'judge_\.answer_asks_input\(',
    ('gateway/pipeline/s8_egress.cpp', 'egress::judge_result'): r'judge_\.judge_result\(',
    ('gateway/mcp/task_methods.cpp', 'task_methods::judged'): r'judge_\.judge_task\(',
    ('gateway/mcp/task_methods.cpp', 'task_methods::refused_update'):
        r'judge_\.judge_input_requests\(',
    ('gateway/mcp/upstream_traffic.cpp', 'upstream_traffic::hook_admits'):
        r'server_request_hook\(.*server_request_question\(',
    ('gateway/mcp/upstream_traffic.cpp', 'upstream_traffic::admit_server_request'):
        r'server_request_refused\(',
    ('gateway/mcp/upstream_traffic.cpp', 'upstream_traffic::hook_asks'):
        r'server_request_hook\(',
    ('gateway/mcp/listen_methods.cpp', 'listener_asking_after'): r'judged_now\(',
}


def qualified(name, classes):
    name = name[:-len('(...)')] if name.endswith('(...)') else name
    return name if '::' in name or not classes else '::'.join(classes + [name])


def body_of(path, start, end):
    lines = sizes.strip(open(path, errors='replace').read()).split('\n')
    return ' '.join(lines[start - 1:end])


def scan(sources):
    """sources: (name as listed, path to read). Returns (findings, producers seen)."""
    findings, seen, spans_of = [], set(), {}
    for name, path in sources:
        spans = sizes.function_spans(path)
        spans_of[name] = (path, spans)
        text = sizes.strip(open(path, errors='replace').read()).split('\n')
        for number, line in enumerate(text, 1):
            for writer, pattern in WRITERS.items():
                if not re.search(pattern, line):
                    continue
                held = [s for s in spans if s[0] <= number <= s[1]]
                fn = qualified(held[0][2], held[0][3]) if held else '(no function)'
                seen.add((name, fn))
                if (name, fn) not in PRODUCERS and (name, fn) not in ALLOWED:
                    findings.append(f'{name}:{number}: {fn} calls {writer}, and is no producer '
                                    'listed in scripts/check-client-bound.py with its judge')
    for table, what in ((PRODUCERS, 'producer'), (JUDGING, 'judging place'),
                        (ALLOWED, 'writer call allowed')):
        for (name, fn), row in table.items():
            calls = row[0] if isinstance(row, tuple) else None if table is ALLOWED else row
            if name not in spans_of:
                continue
            path, spans = spans_of[name]
            match = [s for s in spans if qualified(s[2], s[3]) == fn]
            if not match:
                findings.append(f'{name}: the listed {what} {fn} is gone: update the list')
            elif calls and not re.search(calls, body_of(path, match[0][0], match[0][1])):
                findings.append(f'{name}: {fn} no longer calls its judge ({calls})')
    return findings, seen


def tree_sources():
    out = []
    for root, _, files in os.walk('gateway'):
        for f in sorted(files):
            if f.endswith(('.cpp', '.hpp')):
                path = os.path.join(root, f)
                out.append((path, path))
    return out


# One new, unlisted call of each writer's spelling: the self-test shows each is found.
SIDE_PATHS = {
    'out.push': ('message_queue::push', 'out.push(std::move(text));'),
    'to_->push': ('message_queue::push', 'to_->push(std::move(text));'),
    'hub.deliver': ('a deliver', 'hub.deliver(holder, note, 0);'),
    'sessions_.deliver': ('a deliver', 'sessions_.deliver(id, text);'),
    'to_.broadcast': ('a broadcast', 'to_.broadcast(note);'),
    'listens_->offer': ('listen_hub::offer', 'listens_->offer(holder, note);'),
    'rec.push_to_client': ('request_context::push_to_client', 'rec.push_to_client(text);'),
    'format_sse': ('format_sse', 'frame += format_sse(text);'),
    'write_event_chunk': ('write_event_chunk',
                          'co_await transport::write_event_chunk(stream, frame);'),
    'make_chunk': ('a chunk written by hand', 'write(stream, http::make_chunk(buf));'),
}


def self_test():
    missed = []
    with tempfile.TemporaryDirectory() as d:
        for n, (spelling, (writer, call)) in enumerate(SIDE_PATHS.items()):
            fake = os.path.join(d, f'side_path_{n}.cpp')
            with open(fake, 'w') as f:
                f.write('namespace gate::transport {\n'
                        'void side_path::relay(std::string text) {\n'
                        f'    {call}\n}}\n}}\n')
            findings, _ = scan(tree_sources() + [('gateway/mcp/side_path.cpp', fake)])
            flagged = [x for x in findings
                       if f'side_path::relay calls {writer}' in x and 'side_path.cpp:3:' in x]
            print(f'{spelling}: ' + (flagged[0] if flagged else 'a new writer call went unnoticed'))
            if not flagged or len(findings) != 1:
                missed.append(spelling)
    # A drain is found by its raw writers, not passed by name: unlisted, it is a finding.
    drain = ('gateway/mcp/session_streams.cpp', 'session_streams::get')
    reason = ALLOWED.pop(drain)
    try:
        findings, _ = scan(tree_sources())
    finally:
        ALLOWED[drain] = reason
    flagged = [x for x in findings if 'session_streams::get calls format_sse' in x]
    print('unlisted drain: ' + (flagged[0] if flagged else 'session_streams::get went unnoticed'))
    if not flagged:
        missed.append('session_streams::get')
    return 1 if missed else 0


def main():
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    sources = tree_sources()
    findings, seen = scan(sources)
    listed = {n for n, _ in sources}
    for (name, fn) in list(PRODUCERS) + list(ALLOWED):
        if name not in listed:
            findings.append(f'{name}: listed, and no such file')
    for f in findings:
        print(f)
    producers = len([s for s in seen if s in PRODUCERS])
    print(f'{producers} producers of client-bound messages, {len(seen) - producers} writer '
          f'calls allowed with a reason, {len(findings)} findings',
          file=sys.stderr)
    sys.exit(1 if findings else 0)


if __name__ == '__main__':
    main()
