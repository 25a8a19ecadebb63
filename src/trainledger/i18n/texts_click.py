"""click's own fixed words in Chinese: its ``gettext`` msgids (click 8) → zh-CN, the help page's
headings and the usage errors click raises. Keys are ``click.<n>``; the English is click's msgid
exactly (clickzh.py looks each one up by it)."""

from __future__ import annotations

_PAIRS: tuple[tuple[str, str], ...] = (
    ("Usage:", "用法："),
    ("Options", "选项"),
    ("Commands", "命令"),
    ("Positional arguments", "位置参数"),
    ("Show this message and exit.", "显示本帮助并退出。"),
    ("Show the version and exit.", "显示版本并退出。"),
    ("%(prog)s, version %(version)s", "%(prog)s，版本 %(version)s"),
    ("Try '{command} {option}' for help.", "运行 '{command} {option}' 查看帮助。"),
    ("Error: {message}", "错误：{message}"),
    ("Aborted!", "已中止！"),
    ("Missing argument", "缺少参数"),
    ("Missing command.", "缺少命令。"),
    ("Missing option", "缺少选项"),
    ("Missing parameter", "缺少参数"),
    ("Missing parameter: {param_name}", "缺少参数：{param_name}"),
    ("Missing {param_type}", "缺少{param_type}"),
    ("No such command {name!r}.", "没有命令 {name!r}。"),
    ("No such option {name!r}.", "没有选项 {name!r}。"),
    ("Option {name!r} does not take a value.", "选项 {name!r} 不接受取值。"),
    ("Option {name!r} requires an argument.", "选项 {name!r} 需要一个取值。"),
    ("Option {name!r} requires {nargs} arguments.", "选项 {name!r} 需要 {nargs} 个取值。"),
    ("Argument {name!r} takes {nargs} values.", "参数 {name!r} 需要 {nargs} 个取值。"),
    ("Got unexpected extra argument ({args})", "多余的参数（{args}）"),
    ("Got unexpected extra arguments ({args})", "多余的参数（{args}）"),
    ("Did you mean {possibility}?", "你是不是想用 {possibility}？"),
    ("(Did you mean one of: {possibilities}?)", "（你是不是想用以下之一：{possibilities}？）"),
    ("Invalid value for {param_hint}: {message}", "{param_hint} 的取值无效：{message}"),
    ("Invalid value: {message}", "取值无效：{message}"),
    ("{value!r} is not {choice}.", "{value!r} 不是 {choice}。"),
    ("{value!r} is not one of {choices}.", "{value!r} 不在 {choices} 之中。"),
    ("{value!r} is not a valid {number_type}.", "{value!r} 不是有效的{number_type}。"),
    ("{value} is not in the range {range}.", "{value} 不在范围 {range} 之内。"),
    ("{value!r} does not match the format {format}.", "{value!r} 不符合格式 {format}。"),
    ("{value!r} does not match the formats {formats}.", "{value!r} 不符合任一格式 {formats}。"),
    ("{value!r} is not a valid boolean. Recognized values: {states}", "{value!r} 不是有效的布尔值。可用的值：{states}"),
    ("{name} {filename!r} does not exist.", "{name} {filename!r} 不存在。"),
    ("{name} {filename!r} is a directory.", "{name} {filename!r} 是目录。"),
    ("{name} {filename!r} is a file.", "{name} {filename!r} 是文件。"),
    ("{name} {filename!r} is not readable.", "{name} {filename!r} 不可读。"),
    ("{name} {filename!r} is not writable.", "{name} {filename!r} 不可写。"),
    ("{name} {filename!r} is not executable.", "{name} {filename!r} 不可执行。"),
    ("Could not open file {filename!r}: {message}", "无法打开文件 {filename!r}：{message}"),
    ("Choose from:\n\t{choices}", "可选：\n\t{choices}"),
    ("default: {default}", "默认：{default}"),
    ("env var: {var}", "环境变量：{var}"),
    ("required", "必填"),
    ("unknown error", "未知错误"),
    ("Value must be an iterable.", "取值必须是可迭代对象。"),
    ("Takes {nargs} values but 1 was given.", "需要 {nargs} 个取值，但只给了 1 个。"),
    ("Takes {nargs} values but {len} were given.", "需要 {nargs} 个取值，但给了 {len} 个。"),
    ("argument", "参数"),
    ("option", "选项"),
    ("parameter", "参数"),
)

# Not here: "file", "directory", "path" — click gives them to its Path types when a command is built
# (metavars, the name in "File 'x' does not exist."); translated, a command first built in Chinese
# would keep them for an English run in the same process.
CLICK: dict[str, tuple[str, str]] = {f"{i}": pair for i, pair in enumerate(_PAIRS)}
