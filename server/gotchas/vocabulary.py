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
    # with a word naming where (``Known LSP Limitations``, ``Known iOS issues``)
    r"known\s+(?:[\w.-]+\s+)?(?:issues?|bugs?|problems?|quirks?|limitations?|limits|failure\s+modes?|challenges?)",
    r"failure\s+modes?",
    r"troubleshooting",
    r"(?:common\s+)?mistakes?",
    r"traps?",
    r"caveats?",
    r"footguns?",
    # what cuts or bites the unwary (``Sharp Edges``, ``Rules that bite``)
    r"sharp\s+edges",
    r"that\s+bites?",
    r"common\s+(?:issues|problems|errors|error\s+patterns|failures)",
    r"(?:typical|frequent)\s+(?:failures|errors|bugs)",
    r"(?:error|bug|failure)\s+patterns",
    r"top\s+patterns",
    r"quirks?",
    r"non-obvious",
    r"things\s+to\s+watch",
    # what to watch for, what often breaks, what looks like a bug and is none
    r"^\W*watch\s+(?:out\s+)?for\W*$",
    r"\bthat\s+(?:often\s+)?breaks?\b",
    r"\blooks?\s+like\s+(?:a\s+)?bugs?\b",
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
    "个坑",  # 踩过的五个坑: the five pits fallen into
    "坑点",
    "避坑",
    "经验",
    "已知问题",
    "常见问题",
    "常见错误",
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
    r"what\s+(?:i|we)\s+(?:(?:actually|really|finally|have|all)\s+)?learn(?:ed|t))(?![\w-])",
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
# ``v2.3``, ``Week 3``, ``Q2 2026``; or a numbered part of the document (``Section 1 — Capture``,
# ``Category 2: Database``), which, like a period, holds lessons and is never one.
_PART_WORDS = r"section|category|abschnitt|kategorie|cat[ée]gor(?:ie|[ií]a)|раздел|категория"
_PART_NAMED = re.compile(rf"^(?:{_PART_WORDS})\s*\d+\b", re.IGNORECASE)
# a period or part named by a word and its number (``Phase 2``, ``Sprint 14``, ``Day 3``)
_PERIOD_WORDS = (
    r"(?:phase|stage|sprint|iteration|milestone|release|build|day|week|month|quarter|part|chapter|round|"
    rf"etappe|fase|étape|этап|спринт|{_PART_WORDS})\s*[\d.]+[a-z]?\b"
)
_PERIOD = re.compile(rf"^(?:{_PERIOD_WORDS}|v?\d+\.\d+(?:\.\d+)*\b|q[1-4]\b)", re.IGNORECASE)
_PERIOD_NAMED = re.compile(rf"^{_PERIOD_WORDS}", re.IGNORECASE)

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
    r"workflows?|deployment|getting\s+started|environment|dependencies|project|guidelines|big\s+picture|"
    r"technolog(?:y|ies)(?:\s+used)?|building\s+and\s+running|"
    r"instructions|requirements|principles?|rules|"
    # the same sections in other languages: Spanish, Portuguese, French, German
    r"arquitectura|arquitetura|architektur|convenciones|conven[cç][oõ]es|tecnolog[ií]as|principios|"
    r"principes|prinzipien|reglas|regras|r[èe]gles|regeln)(?![\w-])|"
    # whole titles only: ``Layout shifts on load`` is a lesson, ``Layout`` a guide's section
    r"^(?:tech(?:nology)?\s+stack|stack|layout|(?:repo(?:sitory)?\s+|directory\s+|folder\s+)?layout|"
    r"(?:universal|house|ground|general|coding|core)\s+rules|\w+\s+workspaces?|"
    r"技術スタック|(?:ディレクトリ|フォルダ)?構成|コマンド|技术栈|目录结构|常用命令|"
    # in Chinese: the project's overview, architecture, start-up, workflow, rules and principles
    r"(?:项目)?(?:概述|概览|简介)|(?:系统|技术)?架构(?:概览|概述|设计)?|启动|(?:开发|工作)流程|"
    r"依赖(?:服务)?|目录)$|"
    # rules, conventions and principles of any part (``路由规则``, ``目录约定``, ``核心原则``)
    r"^[\w·\s]{0,8}(?:规则|规范|约定|原则)$|"
    # a section on the project itself, in Chinese, Japanese and Korean (``项目定位``, ``프로젝트 구조``)
    r"^(?:项目|プロジェクト|프로젝트)",
    re.IGNORECASE,
)
# a stamp of when the file was last changed, closing it: ``*Last updated: 2026-05-06 16:42 ET*``
UPDATED_STAMP = LazyPattern(
    r"^\W*(?:last\s+(?:updated|reviewed|modified|edited)|updated(?:\s+on)?|最后更新|最終更新|更新日)\b",
    re.IGNORECASE,
)
# a file titled as rules to follow (``# Error Handling Rules``, ``# Правила: ошибки``): a guide
# when no section of it is titled as lessons
RULES_TITLE = LazyPattern(
    r"\brules\b|\bguidelines\b|\bguidance\b|\binstructions\b|\bprotocol\b|\bprinciples\b|"
    r"правила|reglas|règles|regeln|规则|规范|原则|原則|ルール|규칙",
    re.IGNORECASE,
)
GUIDE_TITLE = LazyPattern(
    r"(?:claude|agents|gemini|copilot)\.md|guidelines|guidance|instructions|\bguide\b|readme|\brules\b|"
    r"^\W*project\s+overview\W*$",
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
# reference, history or data flow, or a record of something else (its decisions). The part
# opens with it: after ``Lessons Learned — Stock Intelligence Guide Platform``'s dash, a name
# holding the word is the subject of the lessons, not a part of the file
_GUIDE_PART = LazyPattern(
    r"^\W*(?:(?:workflow\s+)?guide|context|(?:quick\s+)?reference|(?:project\s+)?history|data\s+flow|"
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


# a heading that names a lesson without saying it: ``## Initial lesson``, ``## The Hardest Lesson``
_LESSON_ALONE = re.compile(r"^(?:the\s+)?(?:[\w-]+\s+)?(?:lessons?(?:\s+learn(?:ed|t))?|takeaway)$")


def names_lesson_alone(title: str) -> bool:
    """``## Portfolio lesson``: the title names a lesson; its text is the lesson."""
    lowered = title.lower()  # asked of every lesson read: most titles hold neither word
    if "lesson" not in lowered and "takeaway" not in lowered:
        return False
    return bool(_LESSON_ALONE.match(bare_title(title).strip(" :.")))


def names_one_lesson(title: str) -> bool:
    text = plain(title)
    return bool(_SINGULAR.search(text)) and not _PLURAL.compiled.search(text)


# problems met, in words the lessons vocabulary leaves out (``Anti-Patterns``, ``Common errors``):
# a section so titled may hold lessons, though it is no sure sign of them
_PROBLEMS = LazyPattern(
    r"(?<![\w-])(?:anti-?patterns?|errors?|problems?|issues?|warnings?|don'?ts|bugs?)(?![\w-])|"
    r"错误|エラー|문제|問題|问题",
    re.IGNORECASE,
)


def names_problems(title: str) -> bool:
    return bool(_PROBLEMS.compiled.search(plain(title)))


# a sentence that opens by naming the file it is in: ``This document catalogs …`` (asked of
# every paragraph: the symbols before its first word are passed over once, not once a language)
_THIS_FILE = LazyPattern(
    r"^\W*(?:this\s+(?:document|file|page|doc)\b|(?:este|ce|dieses|questo)\s+"
    r"(?:documento|document|fichier|dokument|archivo|arquivo)\b|本(?:文档|文件|文)|このファイル|이\s*문서)",
    re.IGNORECASE,
)


def lines_naming_file(lines: Sequence[str], starts: Iterable[int]) -> frozenset[int]:
    """Those of ``starts`` whose line opens by naming the file (``This document catalogs …``)."""
    match = _THIS_FILE.compiled.match  # its leading ``\W*`` passes over the indent: no strip
    return frozenset(n for n in starts if match(lines[n]))


def names_no_lessons(title: str) -> bool:
    """A document title such as ``Changelog``, ``TODO``, ``Glossary`` or ``ADR-007: …``."""
    return bool(_NOT_LESSONS.match(plain(title).strip(" :.")))


def names_period(title: str) -> bool:
    """``Phase 1 — …``, ``Sprint 14``, ``v2.3``: a group of lessons by when they were learned."""
    return bool(_PERIOD.match(plain(title)))


def names_part_by_word(title: str) -> bool:
    """``Section 1 — …``, ``Category 2: …``: a numbered part of the document, which holds lessons
    even where its sub-headings open as a lesson's parts would (``### DO: …``)."""
    return bool(_PART_NAMED.match(plain(title)))


def names_period_by_word(title: str) -> bool:
    """``Phase 2: Setup``, ``Day 1``: a period whose number is part of its name, not a lesson's
    number (``5.3 …`` may be either)."""
    return bool(_PERIOD_NAMED.match(plain(title)))


def numbers_entry(label: str) -> bool:
    """``Lesson 1``, ``Gotcha 3``: a label that is the entry's own number, not a field."""
    return bool(_ENTRY_NUMBER.compiled.match(plain(label).strip(" :：.")))


# what a title may open with before its words: a symbol (``🎯``) and a number (``8.``, ``八、``)
_TITLE_LEAD = re.compile(r"^[^\w(]*(?:\d+(?:\.\d+)*[.)]?\s+|[一二三四五六七八九十]{1,3}[、.．]\s*)?")


# The two sides of a lesson shown by contrast (``### Wrong: …`` / ``### Right: …``): its parts.
_CONTRAST = re.compile(
    r"^[^\w]*(?:wrong|right|bad|good|incorrect|correct|avoid|prefer|don'?t|do|instead|better|worse|"
    r"anti-?pattern|неправильно|правильно|falsch|richtig|mauvais|bon|incorrecto|correcto|错误|正确|"
    r"悪い例|良い例)(?:\s+(?:example|way|approach|pattern|code|practice))?\s*$",
    re.IGNORECASE,
)


# a code span in a title: the project's own words (``index.ts``), not the title's
CODE_SPAN = LazyPattern(r"`[^`]*`")
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
    return bool(_CLAIM.compiled.search(CODE_SPAN.compiled.sub(" ", plain(title))))


def names_contrast(title: str) -> bool:
    """``Wrong: …``, ``✅ Right``, ``Bad example``: one side of a lesson shown by contrast."""
    label = plain(title).replace("：", ":").partition(":")[0]
    return bool(_CONTRAST.match(label.strip(" *_")))


# A title naming commands to run (``Debug Commands``, ``Quick-look log commands``, ``Backup
# Command``, ``Recovery Procedures``, ``Comandos Úteis``): over code alone, a reference kept
# beside the lessons.
_COMMANDS = re.compile(
    r"^(?:[\w-]{1,40}\s+){0,3}(?:commands?|procedures)$|^[\w\s-]{0,40}(?:命令|コマンド|명령어?)$|"
    r"^(?:comandos|commandes|befehle)(?:\s+[\w-]{1,40}){0,3}$",
    re.IGNORECASE,
)


# a section telling what the file's own labels mean: ``Status Legend``, ``Severity
# Classification``, ``Priority levels``, ``Clasificación de Severidad``, ``Légende``
_KEY_TITLE = LazyPattern(
    r"^(?:(?:status|severity|priority|impact|risk|icon|emoji|label|tag)s?\s+"
    r"(?:legend|key|classification|levels?|scale|definitions?|ratings?)"
    r"|(?:legend|legenda|leyenda|l[ée]gende)(?:\s+(?:of|de|des|da|do|der)\s+\w+)?"
    r"|(?:classification|clasificaci[oó]n|classifica[cç][aã]o|niveaux?|niveles?|n[ií]veis|levels?|scale|escala)"
    r"\s+(?:(?:of|de|des|da|do)\s+)?(?:la\s+|a\s+)?"
    r"(?:severity|severidad|s[ée]v[ée]rit[ée]|gravedad|gravidade|gravit[ée]|priority|prioridad|priorit[ée]|"
    r"prioridade)s?"
    r"|schweregrade?|priorit[äa]ten)"
    r"(?:\s*\([^)]*\))?$",
    re.IGNORECASE,
)
# the words such a title holds, asked first: most titles hold none of them
_KEY_WORDS = ("legend", "leyenda", "gende", "sever", "prior", "grav", "key", "level", "classif", "clasific")


def names_key(title: str) -> bool:
    """``## Severity Classification``, ``## Status Legend``: a title naming the file's key."""
    lowered = title.lower()
    if not any(word in lowered for word in _KEY_WORDS):
        return False
    return bool(_KEY_TITLE.compiled.match(bare_title(title).strip(" :.")))  # ``1. Clasificación …`` too


def names_commands(title: str) -> bool:
    # asked of every section: most titles name no command at all, an ASCII one told so by a few
    # substring tests (twice as fast as the search)
    lowered = title.lower()
    if lowered.isascii():
        for word in _ASCII_COMMAND_WORDS:
            if word in lowered:
                break
        else:
            return False
    elif _COMMAND_WORD.search(lowered) is None:
        return False
    return bool(_COMMANDS.match(bare_title(title).strip(" :.")))


# A title naming a check or chore to run (``Check Backend Health``, ``Verify Network Connection``,
# ``How to fully reset the state``, ``Debugging``, ``Clean slate``): over code alone, commands too.
# ``Test …`` is left out: as often a noun (``Test Helpers for Codable Types``, a lesson).
_RUN_VERBS = "check verify monitor inspect profile clear reset restart rebuild resume tail view".split()
_RUN_NAMES = "debugging troubleshooting diagnostics".split()
_ACTION_TO_RUN = re.compile(
    rf"^(?:(?:{'|'.join(_RUN_VERBS)})\s+\S|how\s+to\s+\S|(?:{'|'.join(_RUN_NAMES)}|clean\s+slate)$)",
    re.IGNORECASE,
)
# the words such a title opens with, asked first: most titles open with none of them
_ACTION_FIRST = frozenset((*_RUN_VERBS, *_RUN_NAMES, "how", "clean"))
_MARKUP = "#*_`~>:.()[]"


def names_action_to_run(title: str) -> bool:
    """``Check Backend Health``, ``🔍 Check logs``: the first or second word (after a symbol) is
    looked up before the title is stripped of its markup and matched."""
    first = title.lower().split(None, 2)
    if not (
        (first and first[0].strip(_MARKUP) in _ACTION_FIRST)
        or (len(first) > 1 and first[1].strip(_MARKUP) in _ACTION_FIRST)
    ):
        return False
    return bool(_ACTION_TO_RUN.match(bare_title(title).strip(" :.")))


_COMMAND_WORDS = ("command", "comando", "commande", "befehl", "procedure", "命令", "コマンド", "명령")
_COMMAND_WORD = re.compile("|".join(map(re.escape, _COMMAND_WORDS)))
_ASCII_COMMAND_WORDS = tuple(word for word in _COMMAND_WORDS if word.isascii())


def bare_title(title: str) -> str:
    """A title's words, less emphasis, a leading symbol and number (``🎯 8. Summary`` →
    ``summary``), lower-cased."""
    return _TITLE_LEAD.sub("", plain(title)).strip()


# Steps of a diagnosis, in the imperative (``1. Check the env var``, ``- Verify the path``): a
# list of them under a problem is that problem's procedure, not a list of lessons.
_STEP = LazyPattern(
    r"^(?:check|verify|confirm|inspect|review|restart|try|look\s+(?:at|for|in)|make\s+sure|ensure|"
    r"clear|clean|rebuild|reinstall|re-?run|run)\b|"
    # and in Chinese and Japanese: check, confirm, verify, clear, restart, run, use
    r"^(?:檢查|检查|確認|确认|驗證|验证|清除|清理|重啟|重启|重新|執行|执行|運行|运行|使用|再起動|実行)",
    re.IGNORECASE,
)


def names_guide_section(title: str) -> bool:
    """A guide's own section (``## Setup``, ``## Build commands``); not ``## Build 3 — Gated
    onboarding``, a period of the work."""
    return GUIDE_WORDS.compiled.search(plain(title)) is not None and not names_period(title)


# a title saying something goes wrong: ``Operations Not Working``, ``Controller Not Detected``, ``Build is
# Slow``, ``Styling Broken``
_TROUBLE = LazyPattern(
    r"(?<![\w-])(?:not\s+(?:\w+ing|\w+ed|found)|broken|fails?|failing|failures?|slow|missing|crash(?:es|ing)?|"
    r"(?:does|do|is|are|wo|ca)n'?t\s+\w+|cannot\s+\w+|stuck|hangs?|timeouts?)(?![\w-])",
    re.IGNORECASE,
)


# ``## 11.3 Open questions`` over a list of them: in a file of issues, each one still open
_OPEN_QUESTIONS = re.compile(r"^(?:open|unresolved|outstanding|unanswered)\s+questions$")


# a record of progress (``# Project Progress``, ``# 开发进度记录``, ``# Progress Log``): what was done
_PROGRESS = LazyPattern(r"\bprogress\b|進捗|进度|進度|прогресс|fortschritt|progreso|progrès", re.IGNORECASE)


def names_progress(title: str) -> bool:
    """A title naming a record of progress, and no lessons in it."""
    return bool(_PROGRESS.compiled.search(plain(title))) and not names_lessons(title)


# a checklist (``## Pre-Deployment Checklist``, ``### 检查清单``): steps to take each time, not lessons
_CHECKLIST = LazyPattern(
    r"\bcheck[\s-]?lists?\b|checkliste|чек-?лист|チェックリスト|检查清单|檢查清單", re.IGNORECASE
)


def names_checklist(title: str) -> bool:
    """``Migration Checklist``, ``Before you… (Checklist)``: its items are steps to take."""
    return bool(_CHECKLIST.compiled.search(plain(title)))


def names_open_questions(title: str) -> bool:
    """``## Open Questions``: a list of issues not settled yet, each one an entry."""
    return bool(_OPEN_QUESTIONS.match(bare_title(title).strip(" :.")))


# a bucket of issues fixed: ``### Fixed ✓``, ``### Crash-on-use (HIGH) — fixed``, ``## Resolved``
_RESOLVED = re.compile(
    r"(?:^|[—–:|-]\s*)(?:fixed|resolved|solved|closed)(?:\s+issues|\s+bugs)?\W*$|^(?:issues|bugs)\s+(?:fixed|resolved)\W*$",
    re.IGNORECASE,
)


def names_resolved(title: str) -> bool:
    """A title naming a bucket of issues fixed, its ticked items each one of them."""
    return bool(_RESOLVED.search(plain(title)))


# a troubleshooting file: ``# Troubleshooting``, ``# トラブルシューティング``, ``# 故障排除``
_PROBLEM_FILE = LazyPattern(
    r"troubleshoot|dépannage|トラブルシューティング|故障排除|疑难解答|排错", re.IGNORECASE
)


@lru_cache(maxsize=64)  # asked of the file's one title by every leaf over a few bullets
def names_problem_file(title: str) -> bool:
    """A file title naming troubleshooting: its sections are problems to solve."""
    return bool(_PROBLEM_FILE.compiled.search(plain(title)))


def names_trouble(title: str) -> bool:
    """A title naming problems met (``Database Issues``) or saying something goes wrong."""
    return names_problems(title) or bool(_TROUBLE.compiled.search(plain(title)))


def names_step(text: str) -> bool:
    """Whether an item's text or a title opens with a step to take (``Check …``, ``Verify …``),
    numbered or not (``2. **Restart the server**``)."""
    text = plain(text).lstrip(" *_")
    if text[:1].isdigit():
        text = _STEP_NUMBER.sub("", text).lstrip(" *_")
    return bool(_STEP.compiled.match(text))


_STEP_NUMBER = re.compile(r"^\d{1,3}[.)]\s+")


# ``Step 1: Run the script``, ``Étape 2``, ``步骤 3``: one numbered step of a procedure
_NUMBERED_STEP = LazyPattern(
    r"^(?:step|schritt|[ée]tape|paso|passo|stap|krok|шаг|步骤|ステップ)\s*\d+(?!\d)", re.IGNORECASE
)


# A debugging method's phases named as one (``## Four phases``, ``## 4 фазы``, ``## 4단계 프로세스``,
# ``## 四阶段流程``, ``## 1. 七步法``), or one phase of it (``## Phase 1: Root-cause investigation``)
_METHOD_PHASES = LazyPattern(
    r"^\W*(?:\d+[.)]\s*)?(?:\d+|two|three|four|five|six|seven|[二三四五六七])\s*-?\s*"
    r"(?:phases?|stages?|фаз[ыа]?|этап(?:а|ов)?|단계|阶段|段階|フェーズ|步法?)(?!\w)",
    re.IGNORECASE,
)
_PHASE = LazyPattern(r"^\W*(?:phase|фаза|étape|fase)\s*\d+\s*[:.—–-]", re.IGNORECASE)
# a review of a stretch of work (``Sprint Retrospective``, ``Phase 1 Postmortem``, ``After-action review``)
REVIEW_TITLE = LazyPattern(
    r"\bretro(?:spective)?s?\b|\bpost[-\s]?mortems?\b|\bafter[-\s]action\b", re.IGNORECASE
)

DEBUGGING_TITLE = LazyPattern(
    r"debug|디버깅|отладк|调试|デバッグ|depura|根因|root\s+cause\s+analysis", re.IGNORECASE
)


# A way to see what a program does (``## Log File Flags``, ``## Debug Configuration``, ``## Do Not
# Guess -- Instrument and Observe``): a debugging tool, not a problem met; how to debug one thing
# (``## Debugging Integration Test Failures``) names a tool too
_DEBUG_TOOL = LazyPattern(
    r"\bdebug|\blog(?:s|ging)?\b|\btrac(?:e|ing)\b|\binstrument|\bbreakpoints?\b", re.IGNORECASE
)
_HOW_TO_DEBUG = LazyPattern(r"^\W*debugging\b", re.IGNORECASE)


def names_debugging_tools(titles: Sequence[str]) -> bool:
    """Two or more sections, each naming a debugging tool and none a problem met (``## Log
    Files``, ``## Log File Flags``, ``## Debugging Integration Test Failures``)."""
    return len(titles) >= 2 and all(
        _DEBUG_TOOL.compiled.search(t)
        and (_HOW_TO_DEBUG.compiled.match(t) or not names_trouble(t))
        for t in map(plain, titles)
    )


def names_method_phases(titles: Sequence[str]) -> bool:
    """Sections naming a method's phases: one naming them all, or three phases one by one."""
    if any(_METHOD_PHASES.compiled.match(plain(t)) for t in titles):
        return True
    return sum(1 for t in titles if _PHASE.compiled.match(plain(t))) >= 3


def names_numbered_step(title: str) -> bool:
    """Whether a title is a numbered step (``Step 2: Start the frontend``)."""
    return bool(_NUMBERED_STEP.compiled.match(plain(title).lstrip(" *_")))


def names_procedure(title: str, texts: Iterable[str]) -> bool:
    """A problem's title over texts two thirds of which are steps to take (``## Test Failures``
    over ``Run with verbose output``, ``Check the worker log``): one problem's procedure, whether
    the steps are bullets or sub-headings."""
    if not names_trouble(title):
        return False  # most titles: the texts are not read
    steps = [names_step(text) for text in texts]
    return sum(steps) * 3 >= len(steps) * 2
