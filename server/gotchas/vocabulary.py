"""Words and title shapes a person uses to tell lessons from their groups, parts and guides.

Rules as data: each table below is read by ``reading``; adding a language or a field
name is a one-line change here. Patterns are matched case-insensitively on a heading's
or label's text with Markdown emphasis removed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from gotchas.pattern import LazyPattern

# A section titled like this holds lessons (plural) — a lessons file, or one part of a guide.
LESSONS_WORDS = (
    # English
    r"gotchas?",
    r"lessons?(?:[\s-]+learn(?:ed|t))?",
    r"learnings",
    r"pitfalls?",
    r"known\s+(?:issues?|bugs?|problems?|quirks?|limitations?|failure\s+modes?)",
    r"failure\s+modes?",
    r"troubleshooting",
    r"(?:common\s+)?mistakes?",
    r"traps?",
    r"caveats?",
    r"footguns?",
    r"common\s+(?:issues|problems)",
    r"quirks?",
    r"non-obvious",
    r"things\s+to\s+watch",
    r"(?:things|patterns|what)\s+to\s+avoid",
    r"anti-?patterns",
    r"post-?mortems",
    # Russian
    r"уроки",
    r"урок",
    r"подводные\s+камни",
    r"грабли",
    r"(?:типичные\s+)?ошибки",
    r"известные\s+проблемы",
    # Norwegian
    r"lærdommer",
    r"lærdom",
    r"fallgruver",
    r"feller",
    r"kjente\s+(?:problemer|feil)",
    # German
    r"lektionen",
    r"erkenntnisse",
    r"fallstricke",
    r"stolperfallen",
    r"bekannte\s+(?:probleme|fehler)",
    r"fehlerbehebung",
    # French
    r"leçons",
    r"pièges",
    r"écueils",
    r"erreurs\s+(?:courantes|fréquentes)",
    r"problèmes\s+connus",
    r"dépannage",
    # Spanish / Portuguese
    r"lecciones(?:\s+aprendidas)?",
    r"trampas",
    r"errores\s+comunes",
    r"problemas\s+conocidos",
    r"solución\s+de\s+problemas",
    r"lições(?:\s+aprendidas)?",
    r"armadilhas",
    # Vietnamese: lessons (learned), troubleshooting, common errors, known issues
    r"bài\s+học(?:\s+kinh\s+nghiệm)?",
    r"khắc\s+phục\s+sự\s+cố",
    r"lỗi\s+thường\s+gặp",
    r"vấn\s+đề\s+đã\s+biết",
)
# CJK words need no word boundaries.
LESSONS_CJK = (
    "教訓",
    "教训",
    "学び",
    "落とし穴",
    "注意点",
    "ハマりどころ",
    "よくあるミス",
    "既知の問題",
    "トラブルシューティング",
    "陷阱",
    "踩坑",
    "的坑",  # 已知的坑, 踩过的坑: pits fallen into
    "坑点",
    "避坑",
    "经验",
    "已知问题",
    "常见问题",
    "注意事项",
    "易错",
    # Korean: precautions, pitfalls, mistakes, patterns often got wrong, known issues
    "주의사항",
    "주의 사항",
    "작업 시 주의",
    "함정",
    "실수",
    "자주 틀리는",
    "알려진 문제",
    "알려진 이슈",
    "트러블슈팅",
)
_LESSONS = re.compile(
    r"(?<![\w-])(?:" + "|".join(LESSONS_WORDS) + r")(?![\w-])|" + "|".join(LESSONS_CJK),
    re.IGNORECASE,
)
# A retrospective's hindsight: a section of lessons at the top of a retrospective, one lesson's
# part as a sub-heading under an incident (``#### What we learned``).
_HINDSIGHT = LazyPattern(
    r"(?<![\w-])(?:what\s+(?:i|we)(?:'d|\s+would)\s+do\s+differently|what\s+went\s+wrong|"
    r"what\s+(?:did\s+not|didn'?t)\s+(?:go\s+well|work)|what\s+didn'?t(?=\s*\?|\s*$)|"
    r"what\s+(?:i|we)\s+learn(?:ed|t))(?![\w-])",
    re.IGNORECASE,
)
# One lesson, not a collection: "Critical Lesson", "Backend gotcha".
# ``Lesson Log``, ``Gotcha Tracker``: a record of many, named by what one entry is
_RECORD_OF_MANY = (
    r"logs?|book|ledger|journal|register|registry|tracker|list|notes|archive|library|bank|index|"
    r"entries|records"
)
_SINGULAR = re.compile(
    r"(?<![\w-])(?:lesson|gotcha|pitfall|trap|caveat)(?![\w-])(?!\s+(?:" + _RECORD_OF_MANY + r")\b)",
    re.IGNORECASE,
)
_PLURAL = LazyPattern(
    r"(?<![\w-])(?:lessons|gotchas|pitfalls|traps|caveats|learnings)(?![\w-])", re.IGNORECASE
)

# Sections about the file itself: never lessons.
_PLAN_LEAD = r"^\W*(?:\d+(?:\.\d+)*[.)]?\s+)?"  # a plan's title may be numbered in its series
META_TITLES = (
    r"when\s+to\s+add",
    r"how\s+to\s+(?:add|write|use|contribute)",
    # how to read the file itself, not how to read a config or a log (lessons)
    r"how\s+to\s+read\s+(?:this|these|the\s+(?:page|file|tables?|list|entries|catalog|doc(?:ument)?))\b",
    r"adding(?:\s+(?:or|and)\s+(?:updating|editing|removing))?\s+(?:an?\s+)?(?:new\s+)?(?:entry|entries|lessons?|learnings?|gotchas?)",
    r"^\W*add\s+(?:an?\s+)?(?:new\s+)?(?:entry|entries|lessons?|gotchas?)\s+(?:here|below)\b",
    r"entry\s+(?:format|template)",
    r"^(?:the\s+)?format(?:\s*\([^()]*\))?$",
    # ``Entry format``, ``Prompt format``; not a category of lessons (``Data Format``, ``API & Data Format``)
    r"^\W*(?:entry|entries|lessons?|learnings?|gotchas?|log|record|note|prompt|item|issue|bug|report)\s+format$",
    r"^format\s+(?:for|of|für|pour|para)\b",
    # the file's own template: alone, for its entries (``Entry template``, ``Template for new
    # entries``, ``Template per nuove lesson``, ``Template 1: …``), not the project's (``Django
    # Templates``, ``Template literals``)
    r"^\W*\[?templates?\]?\W*(?:\([^()]*\))?$|^\W*\[?template\]?\s*[—–:-]|"
    r"\b(?:entry|entries|lessons?|learnings?|logs?|reports?|reporting|issues?|bugs?|notes?|records?|new|"
    r"gotchas?|incidents?|postmortems?|retro(?:spective)?s?)\s+templates?\b|\btemplates?\s+(?:for|per|para|pour|für|voor|cho|thêm|untuk|entry|entries|\d+\s*[:.])",
    r"table\s+of\s+contents",
    r"^contents$",
    r"^index$",
    r"appendix|附录|付録|부록",
    r"changelog",
    r"change\s+log",
    r"roadmap",
    r"see\s+also|^also\s+see$",
    # where to turn when the file does not answer: a closing note, not a lesson
    r"^\W*(?:getting|get|need(?:\s+more)?|where\s+to\s+get|more)\s+(?:additional\s+|further\s+)?help\W*$|^(?:contact\s+)?support$|^\W*contact(?:\s+us)?$",
    # (``Still Having Issues?``, ``Still stuck?``, ``Asking for Help``, ``When to Seek Help``,
    # ``Meminta bantuan``)
    r"^\W*still\s+(?:having\s+(?:issues|problems|trouble)|stuck|not\s+working)\W*$|"
    r"^\W*(?:(?:when|where|how)\s+to\s+)?(?:asking|seeking|ask|seek)\s+(?:for\s+)?help\W*$|^\W*meminta\s+bantuan\W*$",
    # how to report a new one: the file's intake, not a lesson (``🐛 Reporting New Issues``)
    r"^\W*(?:reporting|how\s+to\s+report|report(?:ing)?\s+an?)\s+(?:new\s+)?(?:issues?|bugs?|problems?)\W*$",
    # ideas not tried yet (``Untested ideas``, ``Improvement Ideas``): a plan, not a lesson
    r"^\W*(?:untested|improvement|untried)\s+ideas\W*$|^\W*ideas\s+(?:for|to)\s+(?:improve|try|improvement)",
    r"\bwhen\s+(?:filing|reporting|opening)\s+an?\s+(?:issue|bug)\W*$|^\W*cara\s+(?:report|melaporkan)\b",
    # and what to send with it (``Information to Gather``, ``环境信息收集``, ``報告してほしい情報``)
    r"^\W*(?:(?:debug|diagnostic|environment|system)\s+)?information\s+to\s+(?:gather|collect|include|provide)\W*$|"
    r"^\W*what\s+to\s+include(?:\s+when\s+reporting)?\W*$|^(?:环境|调试|诊断)?信息收集$|"
    r"^報告(?:してほしい|に必要な|時の)?(?:情報|内容)$",
    r"^related(?:\s+\w+)?$",
    r"^references?$",
    r"^(?:further|recommended)\s+reading\b|^(?:useful\s+)?(?:links|resources)$|^参考(?:链接|资料|文献|リンク|資料)$",
    r"^usage(?:\s+rules)?$",
    r"^cách\s+sử\s+dụng$|^使い方$|^使用(?:方法|说明|説明|规则|規則)$",
    r"^about(?:\s+this\s+(?:file|doc(?:ument)?))?$|^this\s+(?:file|doc(?:ument)?)\W*$",
    # how the file is kept: its lifecycle, maintenance rules, notes on where it moved
    r"^(?:entry\s+)?lifecycle$",
    # what the file is for, and the categories its entries are tagged with
    r"^purpose\b|^scope\s*(?:&|and)\s*purpose$|^categories\b(?!\s+of\b)",
    r"^maintenance(?:\s+rules)?$|^editing\s+rules\b",
    r"^(?:removed|moved|pruned)\s+(?:from|out\s+of)\s+this\s+(?:file|doc(?:ument)?)\b",
    r"(?:本|此)文件|文档(?:迁移|维护)?说明",
    r"(?:文件|文档|ファイル)(?:索引|一覧)$",  # an index of the project's files: ``七、关键文件索引``
    # what the file leaves out on purpose
    r"^(?:(?:mvp|project|file|document)\s+)?scope\s*(?:[-—–:(]|$)|^notes\s+on\s+scope\b|^out\s+of\s+scope$",
    # a log of the file's or the project's changes, in other languages
    r"^(?:修复|迭代|变更|更新|修改|版本)(?:记录|日志|历史)$|^(?:更新|変更|改訂)履歴$",
    # what is still to do: a plan, not a lesson learned
    # (numbered too: ``15. Next improvements`` closing a numbered series)
    _PLAN_LEAD + r"(?:future|potential|next|planned|upcoming)\s+(?:enhancements?|improvements?|work|plans?|"
    r"outlook|ideas|learning\s+areas|entries|topics)\b",
    _PLAN_LEAD + r"(?:(?:known|open|pending|remaining)\s+){0,2}follow[- ]?ups?(?:\s*\([^()]*\))?$",
    _PLAN_LEAD + r"(?:next\s+(?:steps|session(?:\s+priorities)?)|nächste\s+schritte)\b",
    # a record of the file's own versions or edits (``Version History``, ``Corrections History``)
    r"^\W*(?:version|update|revision|edit|corrections?)\s+history\W*$",
    # general advice closing a file of lessons (``General Principles``, ``通用建议``): their summary
    r"^\W*(?:\d+[.)]?\s*)?(?:general|overall|guiding)\s+(?:principles|advice|recommendations|guidelines)\W*$|"
    r"^\W*(?:[\d一二三四五六七八九十]+[、.．]?\s*)?通用(?:建议|原则|准则|避坑指南)",
    _PLAN_LEAD + r"(?:backlog|to-?dos?)$",
    # the same in Japanese and Korean: how the file is run, its format, what comes next
    r"^運用ルール$|^(?:[\w-]+\s*){0,2}(?:형식|포맷)$|^향후\s*(?:개선|계획)",
    # and in Chinese: follow-up suggestions, to-dos, plans (``9. 后续建议``, ``六、后续待办``)
    r"^\W*(?:[\d一二三四五六七八九十]+[、.．]?\s*)?后续(?:建议|待办|计划|优化|工作|改进)",
    # how to add an entry and what belongs here, in Spanish and Portuguese (``Cómo añadir nuevas
    # lecciones``, ``Qué debe guardarse aquí``), and the instructions to the agent keeping the file
    r"^c[oó]mo\s+(?:a[nñ]adir|agregar|adicionar|registrar|usar)\b|^qu[eé]\s+(?:debe\s+)?(?:guardar|registrar)|"
    r"^\W*instrucci(?:[oó]n|ones)\s+para\s+(?:la\s+)?(?:ia|ai)$|^\W*instructions?\s+for\s+(?:the\s+)?(?:ai|agents?)$|"
    r"^reglas?\s+de\s+uso$",
    # an entry template, in other languages
    r"^(?:шаблон|формат)(?:\s+записи)?$|^(?:vorlage|modèle|plantilla|modelo)\b|模板|テンプレート|템플릿|書式",
    # the entries' format: ``记录格式``, ``版本问题记录格式`` (the format of the version-issue records)
    r"(?:^|记录)格式(?:说明|规范)?$|^(?:條目|条目|日志|教训|经验)格式(?:说明|规范)?$",
)
_META = LazyPattern("|".join(f"(?:{p})" for p in META_TITLES), re.IGNORECASE)
# Advice for future work closing a file of lessons (``Recommendations for Future Projects``): a
# summary of them; not a section that names lessons (``Lessons for the future`` holds them).
_LATER = LazyPattern(
    r"\bfor\s+(?:the\s+)?future\b|\bfuture\s+(?:projects?|self|sessions?)\b|"
    r"\bpara\s+(?:(?:los\s+)?proyectos\s+)?futuros\b|\bfuturos\s+proyectos\b|\ba\s+quien\s+repita\b",
    re.IGNORECASE,
)

# A document titled like this (the whole title) holds no lessons: a record of changes, plans,
# open tasks, terms or one decision.
NOT_LESSONS_TITLES = (
    r"change\s*log",
    r"release\s+notes",
    r"roadmap",
    r"to-?do(?:\s+list)?",
    r"tasks",
    r"backlog",
    r"glossary",
    r"terminology",
    r"definitions",
    r"adr[- ]?\d+\b.*",
    r"(?:architecture\s+)?decision\s+record\b.*",
    # ``lesson`` before a noun of its own is a lesson taught (``Lesson Cards``, ``Lesson System``,
    # ``… — Lesson Demonstrations``), not learned; a log of lessons keeps its name (``Lesson Log``)
    r"(?:.*\W)?lesson\s+(?!(?:" + _RECORD_OF_MANY + r"|note|record|learned|learnt|summary|review|recap|"
    r"digest|from|on|about|of|in|for|to|per|by|with|at|that|this|and|or|is|was|we|i|you)\b)[^\W\d_]{2,}\b.*",
)
_NOT_LESSONS = re.compile(r"^(?:" + "|".join(NOT_LESSONS_TITLES) + r")$", re.IGNORECASE)

# Group headings that name a stretch of work or time: ``Phase 1 — Inventory``, ``Sprint 14``,
# ``v2.3``, ``Week 3``, ``Q2 2026``.
_PERIOD = re.compile(
    r"^(?:(?:phase|stage|sprint|iteration|milestone|release|build|week|month|quarter|part|chapter|round|"
    r"phase|etappe|fase|étape|этап|спринт)\s*[\d.]+[a-z]?\b|v?\d+\.\d+(?:\.\d+)*\b|q[1-4]\b)",
    re.IGNORECASE,
)

# Numbered labels that number the entries themselves (``**Lesson 1:**``, ``Gotcha 3.``), unlike
# ``Solution 2:``, which numbers a part of one lesson.
_ENTRY_NUMBER = LazyPattern(
    r"^(?:lesson|learning|gotcha|pitfall|mistake|finding|trap|caveat|takeaway|bug|issue|incident|"
    r"defect|урок|lektion|leçon|lección|lição|баг|проблема)\s*#?\d+[a-z]?$",
    re.IGNORECASE,
)

# This tool's own entry fields (``fields.KNOWN`` is the same set, checked by a test): named here
# so that the reading, below the record model, needs nothing of it.
_KEYS = "id tasks root-cause supersedes superseded-by red-herring-for diagnostic status ruled-out evidence"
ENTRY_FIELD_KEYS = frozenset(_KEYS.split())
# A guide's own sections: their presence without any lessons section marks a pure guide.
GUIDE_WORDS = LazyPattern(
    r"(?<![\w-])(?:overview|architecture|setup|installation|install|build|commands?|testing|tests|"
    r"conventions?|code\s+style|style|structure|usage|configuration|contributing|development|"
    r"workflow|deployment|getting\s+started|environment|dependencies|project|guidelines|"
    r"instructions|requirements)(?![\w-])|"
    # whole titles only: ``Layout shifts on load`` is a lesson, ``Layout`` a guide's section
    r"^(?:tech(?:nology)?\s+stack|stack|layout|(?:repo(?:sitory)?\s+|directory\s+|folder\s+)?layout|"
    r"(?:universal|house|ground|general|coding|core)\s+rules|\w+\s+workspaces?|"
    r"技術スタック|(?:ディレクトリ|フォルダ)?構成|コマンド|技术栈|目录结构|常用命令)$",
    re.IGNORECASE,
)
# a stamp of when the file was last changed, closing it: ``*Last updated: 2026-05-06 16:42 ET*``
UPDATED_STAMP = LazyPattern(
    r"^\W*(?:last\s+(?:updated|reviewed|modified|edited)|updated(?:\s+on)?|最后更新|最終更新|更新日)\b",
    re.IGNORECASE,
)
# a file titled as rules to follow (``# Error Handling Rules``, ``# Правила: ошибки``): a guide
# when no section of it is titled as lessons
RULES_TITLE = LazyPattern(r"\brules\b|правила|reglas|règles|regeln|规则|规范|ルール", re.IGNORECASE)
GUIDE_TITLE = LazyPattern(
    r"(?:claude|agents|gemini|copilot)\.md|guidelines|instructions|\bguide\b|readme|\brules\b",
    re.IGNORECASE,
)

_EMPHASIS = re.compile(r"[*_~`]+")


@lru_cache(maxsize=4096)
def plain(title: str) -> str:
    """A title without emphasis markers and surplus spaces, lower-cased (asked of each title
    by several rules: kept once per title)."""
    if "*" in title or "_" in title or "`" in title or "~" in title:  # most titles have none
        title = _EMPHASIS.sub("", title)
    return " ".join(title.split()).lower()


_ASIDE_END = re.compile(r"\s*(?:\([^()]*\)|（[^（）]*）)$")


def words(title: str) -> int:
    """How many words a title has; characters of scripts written without spaces (Chinese,
    Japanese) count half a word each, as a word there runs to about two of them
    (``日期判定不要用應用伺服器時間`` states a claim, as a seven-word English title does).
    Korean is written with spaces between its words, and counted by them."""
    text = plain(title)
    if text.isascii() or max(text) < "\u3040":  # below every range read by character
        return len(text.split())
    # each character read by its range: a pattern over these ranges costs milliseconds to compile
    marks = ["\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u9fff" for c in text]
    cjk = sum(marks)
    spaced = "".join(" " if mark else c for c, mark in zip(text, marks, strict=True))
    return len(spaced.split()) + (cjk + 1) // 2


def names_lessons(title: str) -> bool:
    text = plain(title)
    if _LESSONS.search(text) or names_hindsight(text):
        return True
    return any(_LESSONS.search(name) for name in _file_names(title))


# a file named in a title (``LESSONS_LEARNED.md — HUSTLE``), its words joined by underscores
_FILE_NAME = re.compile(r"(?<![\w.-])[\w.-]{1,255}\.mdc?\b")


def _file_names(title: str) -> list[str]:
    """The file names a title holds, with the words an underscore joins apart (``plain`` drops
    underscores as emphasis, joining ``LESSONS_LEARNED`` into one word)."""
    if "_" not in title:  # most titles
        return []
    return [name.replace("_", " ").lower() for name in _FILE_NAME.findall(title)]


_ANTI_PATTERNS = LazyPattern(r"(?<![\w-])anti-?patterns(?![\w-])", re.IGNORECASE)


def names_anti_patterns_only(title: str) -> bool:
    """``Anti-Patterns (금지 사항)``: named as lessons by that word alone, which may also name
    rules to follow."""
    text = plain(title)
    found = _ANTI_PATTERNS.compiled.search(text)
    return found is not None and not names_lessons(_ANTI_PATTERNS.compiled.sub(" ", text))


def names_hindsight(title: str) -> bool:
    """``What went wrong``, ``What I would do differently``: a retrospective's lessons."""
    return "what" in title.lower() and bool(_HINDSIGHT.compiled.search(plain(title)))


def names_many_lessons(title: str) -> bool:
    """``Non-obvious gotchas worth knowing``, ``SFH pitfalls``: lessons named in the plural."""
    if _PLURAL.compiled.search(plain(title)):
        return True
    return any(_PLURAL.compiled.search(name) for name in _file_names(title))


# the parts of a compound title (``Gotchas, Data Flow & Quick Reference``, ``已知问题与分支价值记录``)
_TITLE_PARTS = re.compile(r"\s*(?:&|\+|,|;|\band\b|\bund\b|\bet\b|与|和|及|、|\s[-—–]\s)\s*", re.IGNORECASE)
# a part of such a title naming what a guide holds besides lessons: its workflow, context,
# reference, history or data flow, or a record of something else (its decisions)
_GUIDE_PART = LazyPattern(
    r"(?<![\w-])(?:(?:workflow\s+)?guide|context|(?:quick\s+)?reference|(?:project\s+)?history|data\s+flow|"
    r"overview|architecture|decision\s+log)(?![\w-])|指南|背景|记录$|ガイド|가이드",
    re.IGNORECASE,
)


def names_lessons_beside_guide(title: str) -> bool:
    """A title naming lessons and, as another part of it, a guide's contents (``Common Mistakes &
    Workflow Guide``, ``Learnings & Context``): lessons are one part of the file, not all of it."""
    parts = [part for part in _TITLE_PARTS.split(plain(title)) if part.strip()]
    named = [names_lessons(part) or names_problems(part) for part in parts]
    if len(parts) < 2 or not any(named):
        return False
    pairs = zip(parts, named, strict=True)
    return any(not lessons and _GUIDE_PART.compiled.search(part) for part, lessons in pairs)


# where a log's entries go, named alone: ``## Log``, ``## Entries``, ``## Journal``
_LOG_PLACE = LazyPattern(r"^\W*(?:the\s+)?(?:log|entries|journal)\W*$", re.IGNORECASE)


def names_log_place(title: str) -> bool:
    return bool(_LOG_PLACE.compiled.match(plain(title)))


def names_one_lesson(title: str) -> bool:
    text = plain(title)
    return bool(_SINGULAR.search(text)) and not _PLURAL.compiled.search(text)


_META_HINTS = (
    *("add", "how to", "format", "templat", "content", "index", "appendix", "change", "roadmap", "see also"),
    *("future", "potential", "follow", "next", "backlog", "todo", "to-do", "futur", "quien"),
    *("planned", "upcoming", "contact", "reporting", "report a", "cómo", "como ", "qué", "que debe"),
    *("instruc", "regla", "filing", "cara ", "ideas"),
    *(
        "related",
        "help",
        "informat",
        "include",
        "信息收集",
        "報告",
        "history",
        "nächste",
        "still",
        "bantuan",
        "support",
        "general",
        "overall",
        "guiding",
        "通用",
        "referen",
        "usage",
        "about",
        "write",
        "contribut",
        "lifecycle",
        "purpose",
        "categor",
        "maintenance",
        "editing",
        "this file",
        "this doc",
        "文件",
        "ファイル",
        "文档",
        "шаблон",
        "формат",
        "vorlage",
        "modèle",
        "plantilla",
        "modelo",
        "模板",
        "テンプレート",
        "템플릿",
        "書式",
        "sử dụng",
        "使",
        "reading",
        "links",
        "resources",
        "参考",
        "scope",
        "记录",
        "格式",
        "日志",
        "历史",
        "履歴",
        "運用",
        "형식",
        "포맷",
        "향후",
        "后续",
        "附录",
        "付録",
        "부록",
    ),
)


# problems met, in words the lessons vocabulary leaves out (``Anti-Patterns``, ``Common errors``):
# a section so titled may hold lessons, though it is no sure sign of them
_PROBLEMS = LazyPattern(
    r"(?<![\w-])(?:anti-?patterns?|errors?|problems?|issues?|warnings?|don'?ts|bugs?)(?![\w-])|"
    r"错误|エラー|문제|問題|问题",
    re.IGNORECASE,
)


def names_problems(title: str) -> bool:
    return bool(_PROBLEMS.compiled.search(plain(title)))


# a sentence that opens by naming the file it is in: ``This document catalogs …``
_THIS_FILE = LazyPattern(
    r"^\W*this\s+(?:document|file|page|doc)\b|^\W*(?:este|ce|dieses|questo)\s+"
    r"(?:documento|document|fichier|dokument|archivo|arquivo)\b|^\W*本(?:文档|文件|文)|^\W*このファイル|^\W*이\s*문서",
    re.IGNORECASE,
)


def lines_naming_file(lines: Sequence[str], starts: Iterable[int]) -> frozenset[int]:
    """Those of ``starts`` whose line opens by naming the file (``This document catalogs …``)."""
    match = _THIS_FILE.compiled.match
    return frozenset(n for n in starts if match(lines[n].strip()))


def names_no_lessons(title: str) -> bool:
    """A document title such as ``Changelog``, ``TODO``, ``Glossary`` or ``ADR-007: …``."""
    return bool(_NOT_LESSONS.match(plain(title).strip(" :.")))


def names_period(title: str) -> bool:
    """``Phase 1 — …``, ``Sprint 14``, ``v2.3``: a group of lessons by when they were learned."""
    return bool(_PERIOD.match(plain(title)))


def numbers_entry(label: str) -> bool:
    """``Lesson 1``, ``Gotcha 3``: a label that is the entry's own number, not a field."""
    return bool(_ENTRY_NUMBER.compiled.match(plain(label).strip(" :：.")))


# The parts of a report around its lessons (its summary, how it was tested, what comes next),
# when they sit at the top of the file; under a lesson, ``Summary`` is that lesson's field.
_REPORT_PARTS = re.compile(
    r"^(?:(?:[\w-]+\s+){0,3}(?:summary|rationale)(?:\s+table)?|overview|conclusions?|"
    # a summary in other languages (``Zusammenfassung``, ``最佳实践总结``, ``요약``)
    r"(?:[\w-]+\s+)?(?:zusammenfassung|résumé|resumen|resumo|итоги|резюме)|\w{0,8}(?:总结|小结|まとめ|要約|요약)|"
    r"test(?:ing)?\s+(?:environment|matrix|setup)|what\s+to\s+document\s+next|"
    r"documentation\s+updates\b.*|next\s+steps(?:\s+priorities)?|recommended\s+actions|(?:final\s+)?recommendations?(?:\s+for\s+[\w\s-]{1,40})?|decision\s+log|"
    r"(?:[\w-]+\s+){0,2}benefits(?:\s+achieved)?|(?:current\s+)?(?:project\s+)?status|"
    # a reference of commands kept beside the lessons, and general advice on debugging
    r"(?:(?:useful|important|common|handy|durable|operating|key|quick)\s+){1,2}(?:commands|shortcuts)"
    r"(?:\s+to\s+remember|\s+for\s+[\w\s]{1,30})?|cheat\s*sheet|quick\s+reference|"
    r"general\s+debugging|quick\s+diagnos(?:is|tics?)|open\s+questions|инструменты\s+отладки|debug(?:ging)?\s+(?:tips|techniques|tools)|デバッグ\s*(?:tips|のコツ)|"
    r"(?:调试|排查|排错)(?:技巧|方法|步骤|流程|思路)|"
    # a checklist distilled from the lessons, to run before work (not an audit's findings)
    r"(?:prevention|testing|release|review|pre-?\w+|before\s+\w+)\s+checklist|checklist(?:\s+for\s+.+)?|"
    # its statistics and the tracker table summing up the issues above
    r"key\s+takeaways?|tl;?\s?dr\b.*|(?:(?:issues?|bugs?)\s+)?(?:statistics|stats)|统计|統計|estatísticas|statistiken|issue\s+tracking|"
    r"status\s+(?:overview|table))$",
    re.IGNORECASE,
)
# what a title may open with before its words: a symbol (``🎯``) and a number (``8.``)
_TITLE_LEAD = re.compile(r"^[^\w(]*(?:\d+(?:\.\d+)*[.)]?\s+)?")


# The two sides of a lesson shown by contrast (``### Wrong: …`` / ``### Right: …``): its parts.
_CONTRAST = re.compile(
    r"^[^\w]*(?:wrong|right|bad|good|incorrect|correct|avoid|prefer|don'?t|do|instead|better|worse|"
    r"anti-?pattern|неправильно|правильно|falsch|richtig|mauvais|bon|incorrecto|correcto|错误|正确|"
    r"悪い例|良い例)(?:\s+(?:example|way|approach|pattern|code|practice))?\s*$",
    re.IGNORECASE,
)


# A finite verb that makes a title a statement (``X is broken``, ``Y requires Z``): the title of
# one lesson, not the name of a category of them.
_CLAIM = LazyPattern(
    r"(?<![\w-])(?:is|are|was|were|isn'?t|aren'?t|doesn'?t|don'?t|can'?t|cannot|won'?t|must|"
    r"requires?|needs|differs?|matters|breaks|fails|lacks|loses|ignores|kills|hangs|blocks|"
    r"overrides|causes|returns|leaks|drops|hides|skips|"
    r"ist|sind|braucht|fehlt|est|sont|ne\s+\w+\s+pas|es|son|не)(?![\w-])",
    re.IGNORECASE,
)


def states_claim(title: str) -> bool:
    """A title written as a statement about the project (``Port mapping differs between A and B``)."""
    return bool(_CLAIM.compiled.search(_CODE.compiled.sub(" ", plain(title))))


def names_contrast(title: str) -> bool:
    """``Wrong: …``, ``✅ Right``, ``Bad example``: one side of a lesson shown by contrast."""
    label = plain(title).replace("：", ":").partition(":")[0]
    return bool(_CONTRAST.match(label.strip(" *_")))


# A title naming commands to run (``Debug Commands``, ``Quick-look log commands``, ``Backup
# Command``): over code alone, a reference kept beside the lessons.
_COMMANDS = re.compile(
    r"^(?:[\w-]{1,40}\s+){0,3}commands?$|^[\w\s-]{0,40}(?:命令|コマンド|명령어?)$", re.IGNORECASE
)


def names_commands(title: str) -> bool:
    lowered = title.lower()  # asked of every section: most titles name no command at all
    if not any(map(lowered.__contains__, _COMMAND_WORDS)):
        return False
    return bool(_COMMANDS.match(bare_title(title).strip(" :.")))


_COMMAND_WORDS = ("command", "命令", "コマンド", "명령")


def bare_title(title: str) -> str:
    """A title's words, less emphasis, a leading symbol and number (``🎯 8. Summary`` →
    ``summary``), lower-cased."""
    return _TITLE_LEAD.sub("", plain(title)).strip()


def is_report_part(title: str) -> bool:
    """A report's own part (``## Summary``, ``## F. 排查方法（遇到问题时）``), led by a number or
    a letter, an aside closing it."""
    text = _LETTER_LEAD.sub("", bare_title(title))
    text = _ASIDE_END.sub("", text) or text
    return bool(_REPORT_PARTS.match(text.strip(" :.")))


def names_decisions(title: str) -> bool:
    """``## Architecture Decisions (see DECISIONS.md)``, ``## 🏗️ Архитектурные решения``: the
    decisions taken, a record of its own beside a file of issues."""
    return bool(_DECISIONS.match(bare_title(title)))


_DECISIONS = re.compile(r"(?:key\s+)?architect(?:ure|ural)\s+decisions\b|архитектурные\s+решения")
_LETTER_LEAD = re.compile(r"^[a-z][.)]\s+")  # on the plain, lower-cased title


def _by_first_letter(hints: Sequence[str]) -> str:
    """``a(?:dd|bout)|f(?:ormat)``: an alternation of ``hints`` that tries, at each character,
    only the hints starting with it (a plain one would try every hint at every character)."""
    rests: dict[str, list[str]] = {}
    for hint in hints:
        rests.setdefault(hint[0], []).append(re.escape(hint[1:]))
    return "|".join(f"{re.escape(first)}(?:{'|'.join(rest)})" for first, rest in rests.items())


# Whether an ASCII title holds one of the hints, in one search.
_ASCII_META_HINT = re.compile(_by_first_letter([hint for hint in _META_HINTS if hint.isascii()]))
_CODE = LazyPattern(r"`[^`]*`")


@lru_cache(maxsize=4096)
def is_meta(title: str) -> bool:
    """A section about the file itself (how to add, a template, contents), by its words: code it
    quotes (``project_template_tasks``, ``index.ts``) names the project's things, not the file's."""
    lowered = title.lower()  # a hint first, by substring
    if lowered.isascii():  # no other hint is in ASCII text
        if _ASCII_META_HINT.search(lowered) is None:
            return False
    elif not any(map(lowered.__contains__, _META_HINTS)):
        return False
    quoted = title.count("`") // 2  # each code span is a word of the title's length
    if quoted:
        title = _CODE.compiled.sub(" ", title)
    text = _SYMBOL_LEAD.sub("", plain(title))  # ``🔄 Maintenance`` as ``Maintenance``
    if not _META.compiled.search(text) and (not _LATER.compiled.search(text) or names_lessons(text)):
        return False
    # a long title mentioning a template or a roadmap states a lesson about one; only how to add
    # to the file, or the file itself, is meta at any length
    core = _ASIDE_END.sub("", text) or text  # less an aside, in either script's parentheses
    return words(core) + quoted <= 5 or bool(_META_AT_LENGTH.compiled.search(text))


# the symbols a title may open with (``🔄 ``, ``→ ``), before its first word, number or bracket
_SYMBOL_LEAD = re.compile(r"^[^\w(\[]+(?=[\w(\[])")

_META_AT_LENGTH = LazyPattern(
    r"when\s+to\s+add|how\s+to\s+(?:add|write|use|contribute)|adding\s+(?:an?\s+)?(?:new\s+)?"
    r"(?:entry|entries|lessons?|gotchas?)|entry\s+(?:format|template)|^notes\s+on\s+scope\b|\bthis\s+(?:file|doc|document|documentation)\b|"
    r"\bwhen\s+(?:filing|reporting|opening)\s+an?\s+(?:issue|bug)\W*$"
)


# Steps of a diagnosis, in the imperative (``1. Check the env var``, ``- Verify the path``): a
# list of them under a problem is that problem's procedure, not a list of lessons.
_STEP = LazyPattern(
    r"^(?:check|verify|confirm|inspect|review|restart|try|look\s+(?:at|for|in)|make\s+sure|ensure|"
    r"clear|clean|rebuild|reinstall|re-?run|run)\b",
    re.IGNORECASE,
)


# a title saying something goes wrong: ``Operations Not Working``, ``Build is Slow``, ``Styling Broken``
_TROUBLE = LazyPattern(
    r"(?<![\w-])(?:not\s+\w+ing|broken|fails?|failing|failures?|slow|missing|crash(?:es|ing)?|"
    r"(?:does|do|is|are|wo|ca)n'?t\s+\w+|cannot\s+\w+|stuck|hangs?|timeouts?)(?![\w-])",
    re.IGNORECASE,
)


def names_trouble(title: str) -> bool:
    """A title naming problems met (``Database Issues``) or saying something goes wrong."""
    return names_problems(title) or bool(_TROUBLE.compiled.search(plain(title)))


def names_step(text: str) -> bool:
    """Whether an item's text opens with a step to take (``Check …``, ``Verify …``)."""
    return bool(_STEP.compiled.match(plain(text).lstrip(" *_")))
