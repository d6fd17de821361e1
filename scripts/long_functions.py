#!/usr/bin/env python3
"""Lists the functions of the tracked C++ sources (tests/ excluded) longer than a limit.

A function is a brace block at namespace or class scope whose opening brace follows a
parameter list's ')' (optionally followed by qualifiers, an initializer list or a trailing
return type). Its length counts the lines from the line holding its signature's start to its
closing brace. Comments, strings and character literals are skipped when matching braces.

A function may be longer when the comment block right above it states why, starting with
"One function" (e.g. "One function, top to bottom as the page reads: ..."). Exits 1 when a
function over the limit states no reason.

Usage: scripts/long_functions.py [--limit 80] [--exclude DIR ...]
"""
import argparse
import re
import subprocess
import sys

KEYWORDS_NOT_FUNCTIONS = {"if", "for", "while", "switch", "catch", "return", "sizeof",
                          "decltype", "alignof", "noexcept", "static_assert", "requires"}


def strip_comments_and_strings(text):
    """Replaces comments, string and char literals with spaces, keeping newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                end = n if end < 0 else end + len(m.group(1)) + 2
                out.append(re.sub(r"[^\n]", " ", text[i:end]))
                i = end
            else:
                out.append(c)
                i += 1
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")  # digit separator 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_close(text, open_index):
    """Index of the ')' closing the '(' at open_index, or -1."""
    depth = 0
    for k in range(open_index, len(text)):
        if text[k] == '(':
            depth += 1
        elif text[k] == ')':
            depth -= 1
            if depth == 0:
                return k
    return -1


def parameter_list_open(header):
    """Index of the '(' opening a function header's parameter list, or -1.

    A constructor's parameter list is the first parenthesised group followed by ':' (its
    initializer list); otherwise it is the last group at depth 0 (after a return type such as
    std::function<void()>, before qualifiers or a trailing return type)."""
    groups = []
    k = 0
    while k < len(header):
        if header[k] == '(':
            close = matching_close(header, k)
            if close < 0:
                return -1
            groups.append((k, close))
            k = close + 1
        else:
            k += 1
    for open_index, close in groups:
        if re.match(r"\s*(?:noexcept\s*)?:(?!:)", header[close + 1:]):
            return open_index
    if not groups:
        return -1
    # the last group, unless it is an attribute or qualifier like noexcept(...) / requires
    for open_index, close in reversed(groups):
        before = header[:open_index].rstrip()
        if not re.search(r"\b(noexcept|requires|decltype|alignas)$", before):
            return open_index
    return -1


def function_name(header):
    """The name before the parameter list of a block's header, or None when not a function."""
    header = re.sub(r"(?m)^\s*#.*$", " ", header)
    if re.search(r"\b(namespace|struct|class|enum|union)\b[^()]*$", header):
        return None
    open_index = parameter_list_open(header)
    if open_index < 0:
        return None
    before = header[:open_index].rstrip()
    m = re.search(r"((?:[A-Za-z_~]\w*\s*(?:<[^<>]*>)?\s*::\s*)*(?:operator\s*[^\s(]+|~?[A-Za-z_]\w*))\s*$",
                  before)
    if not m:
        return None
    name = re.sub(r"\s+", "", m.group(1))
    if name.split("::")[-1] in KEYWORDS_NOT_FUNCTIONS:
        return None
    # `= ...{` (a variable's brace initializer) is no function
    tail = header[matching_close(header, open_index) + 1:]
    if re.match(r"\s*[=;,]", tail) or re.search(r"=\s*$", before):
        return None
    return name


def stated_reason(original_lines, first_line):
    """The comment block ending right above a function's first line, when it states why the
    function is long: by convention it starts with 'One function'."""
    k = first_line - 2  # 0-based index of the line above
    block = []
    while k >= 0 and original_lines[k].lstrip().startswith("//"):
        block.insert(0, original_lines[k].strip()[2:].strip())
        k -= 1
    text = " ".join(block)
    return text if text.startswith("One function") else None


def long_functions(path, limit):
    original = open(path, encoding="utf-8", errors="replace").read()
    original_lines = original.splitlines()
    text = strip_comments_and_strings(original)
    results = []
    stack = []  # (kind, start_index) kind: 'scope' | 'function' | 'block'
    last_boundary = 0  # index after the last ';', '{' or '}' at scope level
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '{':
            in_function = any(kind == "function" for kind, _, _ in stack)
            if in_function:
                stack.append(("block", i, None))
            else:
                header = text[last_boundary:i]
                name = function_name(header)
                if name is not None:
                    start = last_boundary + len(header) - len(header.lstrip())
                    stack.append(("function", start, name))
                else:
                    stack.append(("scope", i, None))
            last_boundary = i + 1
        elif c == '}':
            if stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    first = text.count("\n", 0, start) + 1
                    last = text.count("\n", 0, i) + 1
                    length = last - first + 1
                    if length > limit:
                        results.append((length, path, first, name,
                                        stated_reason(original_lines, first)))
            last_boundary = i + 1
        elif c == ';' and not any(kind == "function" for kind, _, _ in stack):
            last_boundary = i + 1
        elif c == '\n' and text.startswith("#", i + 1 + (len(text[i + 1:]) - len(text[i + 1:].lstrip(" \t")))):
            # a preprocessor line ends a header
            if not any(kind == "function" for kind, _, _ in stack):
                j = text.find("\n", i + 1)
                j = n if j < 0 else j
                last_boundary = j
                i = j
                continue
        i += 1
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=80)
    parser.add_argument("--exclude", action="append", default=["tests/"],
                        help="path prefix to leave out (repeatable; tests/ always)")
    args = parser.parse_args()
    files = subprocess.run(["git", "ls-files", "*.cpp", "*.h"], capture_output=True, text=True,
                           check=True).stdout.split()
    found = []
    for path in files:
        if any(path.startswith(prefix) for prefix in args.exclude):
            continue
        found.extend(long_functions(path, args.limit))
    unexplained = 0
    for length, path, line, name, reason in sorted(found, key=lambda f: (-f[0], f[1], f[2])):
        mark = "reason stated" if reason else "NO REASON"
        unexplained += reason is None
        print(f"{length:5d}  {path}:{line}  {name}  [{mark}]")
    print(f"{len(found)} functions over {args.limit} lines, {unexplained} without a stated reason",
          file=sys.stderr)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
