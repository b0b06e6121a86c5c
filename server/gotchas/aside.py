"""Asides to the lessons: sections about the file itself (how to add to it, its template, its
contents, references, plans for later) and a report's own parts around the lessons (its
summary, how it was tested, next steps). A section so titled is left out, never read as a
lesson; these are the words that say so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from gotchas.pattern import LazyPattern
from gotchas.vocabulary import CODE_SPAN, bare_title, names_lessons, plain, words

# Sections about the file itself: never lessons.
_PLAN_LEAD = r"^\W*(?:\d+(?:\.\d+)*[.)]?\s+)?"  # a plan's title may be numbered in its series
# what to do when in doubt (``When unsure``, ``When in doubt: check … first``): a procedure
# beside the lessons, at any length
_IN_DOUBT = r"^\W*(?:when|if)\s+(?:in\s+doubt|unsure)\b"
META_TITLES = (
    r"when\s+to\s+add",
    # keeping the file itself: ``Maintaining this file``, ``Updating this document``
    r"^\W*(?:maintaining|maintenance\s+of|updating|editing|keeping)\s+this\s+(?:file|doc(?:ument)?|page|log|list)"
    r"(?:\s+(?:alive|current|up\s+to\s+date))?\W*$",
    r"how\s+to\s+(?:add|write|use|contribute)",
    # how to read the file itself, not how to read a config or a log (lessons)
    r"how\s+to\s+read\s+(?:this|these|the\s+(?:page|file|tables?|list|entries|catalog|doc(?:ument)?))\b",
    r"adding(?:\s+(?:or|and)\s+(?:updating|editing|removing))?\s+(?:an?\s+)?(?:new\s+)?(?:entry|entries|lessons?|learnings?|gotchas?)",
    r"^\W*add\s+(?:an?\s+)?(?:new\s+)?(?:entry|entries|lessons?|gotchas?)\s+(?:here|below)\b",
    r"entry\s+(?:format|template)",
    # an example of the entries' form, kept with the template (``Example Entry``, ``Sample lesson``)
    r"^\W*(?:an?\s+)?(?:example|sample)\s+(?:entry|entries|lessons?|learnings?|gotchas?)\W*$",
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
    # an index of the file's own entries (``Index by Technology``, ``Status index``, ``… — quick index``)
    r"^(?:(?:quick|status|tag|topic|keyword|category|lessons?)\s+)?index$|^index\s+(?:by|of)\s|[—–:]\s*quick\s+index$",
    # the terms the file uses, defined (``Vocabulary``, ``Glossary``, ``用語集``)
    r"^(?:glossary|vocabulary|terminology|definitions|terms(?:\s+(?:&|and)\s+definitions)?)(?:\s+of\s+terms)?$|"
    r"^(?:用語集?|术语表?|術語|용어집?)$",
    r"appendix|附录|付録|부록",
    r"changelog",
    r"change\s+log",
    r"roadmap",
    r"see\s+also|^also\s+see$",
    # where to turn when the file does not answer: a closing note, not a lesson
    r"^\W*(?:getting|get|need(?:\s+more)?|where\s+to\s+get|more)\s+(?:additional\s+|further\s+)?help\W*$|"
    r"^(?:contact\s+)?support(?:\s+resources)?$|^\W*contact(?:\s+us)?$",
    # (``Still Having Issues?``, ``Still stuck?``, ``Asking for Help``, ``When to Seek Help``,
    # ``Meminta bantuan``)
    r"^\W*still\s+(?:having\s+(?:issues|problems|trouble)|stuck|not\s+working|need(?:\s+more)?\s+help)\W*$|"
    r"^\W*(?:(?:when|where|how)\s+to\s+)?(?:asking|seeking|ask|seek)\s+(?:for\s+)?help\W*$|^\W*meminta\s+bantuan\W*$",
    # how to report a new one: the file's intake, not a lesson (``🐛 Reporting New Issues``)
    r"^\W*(?:reporting|how\s+to\s+report|report(?:ing)?\s+an?)\s+(?:new\s+)?(?:issues?|bugs?|problems?)\W*$",
    # and what to do before one: see whether it is known, collect the report (``Collecting a bug
    # report``, ``Check to see if the issue has been reported``)
    r"^\W*collecting\s+(?:a\s+)?bug\s+reports?\W*$|"
    r"^\W*check\s+(?:to\s+see\s+)?(?:if|whether)\s+(?:the|this|your)\s+(?:issue|bug|problem)\s+"
    r"(?:has\s+been|was|is\s+already)\s+reported",
    # ideas not tried yet (``Untested ideas``, ``Improvement Ideas``): a plan, not a lesson
    r"^\W*(?:untested|improvement|untried)\s+ideas\W*$|^\W*ideas\s+(?:for|to)\s+(?:improve|try|improvement)",
    r"\bwhen\s+(?:filing|reporting|opening)\s+an?\s+(?:issue|bug)\W*$|^\W*cara\s+(?:report|melaporkan)\b",
    # and what to send with it (``Information to Gather``, ``环境信息收集``, ``報告してほしい情報``)
    r"^\W*(?:(?:debug|diagnostic|environment|system)\s+)?information\s+to\s+(?:gather|collect|include|provide)\W*$|"
    r"^\W*what\s+to\s+include(?:\s+when\s+reporting)?\W*$|^(?:环境|调试|诊断)?信息收集$|"
    r"^報告(?:してほしい|に必要な|時の)?(?:情報|内容)$",
    r"^related(?:\s+\w+)?$",
    # how the file stands to the project's other documents (``Relationship to other docs``)
    r"^\W*relationship\s+(?:to|with)\s+(?:the\s+)?other\s+(?:docs|documents|files|rules)\W*$|与其他(?:文档|文件)的关系",
    r"^references?$",
    r"^(?:further|recommended|required|suggested|essential)\s+reading\b|^(?:(?:useful|external|additional|further|other)\s+)?(?:links|resources)$|^参考(?:链接|资料|文献|リンク|資料)$",
    r"^usage(?:\s+rules)?$",
    r"^cách\s+sử\s+dụng$|^使い方$|^使用(?:方法|说明|説明|规则|規則)$",
    r"^about(?:\s+this\s+(?:file|doc(?:ument)?))?$|^this\s+(?:file|doc(?:ument)?)\W*$",
    # how the file is kept: its lifecycle, maintenance rules, notes on where it moved
    r"^(?:entry\s+)?lifecycle$",
    # what the file is for, and the categories its entries are tagged with
    r"^purpose\b|^scope\s*(?:&|and)\s*purpose$|^categories\b(?!\s+of\b)|"
    # the categories in Korean, Chinese and Japanese, the title alone (``## 분류``, ``## 分类``)
    r"^(?:분류|카테고리|分类|分類|类别|類別|カテゴリー?)$",
    # (numbered in its series, or the upkeep closing a troubleshooting guide: ``Preventative Maintenance``)
    r"^(?:\d+[.)]\s*)?(?:preventa?tive\s+)?maintenance(?:\s+rules)?$|^editing\s+rules\b",
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
    # and what the writer would improve next (``Things to improve next``, ``🔹 9. What I Would Improve Next``)
    _PLAN_LEAD + r"(?:things\s+to|what\s+(?:i|we)(?:['’]d|\s+would)?)\s+improve\s+next\W*$",
    _PLAN_LEAD + r"(?:(?:known|open|pending|remaining)\s+){0,2}follow[- ]?ups?(?:\s*\([^()]*\))?$",
    _PLAN_LEAD + r"(?:next\s+(?:steps|session(?:\s+priorities)?)|(?:empfohlene\s+)?nächste\s+schritte)\b",
    # what comes next, in more words and languages (``🚀 What's Next (Parked Items)``, ``Próximos
    # Passos Sugeridos``, ``Trabajo pendiente``, ``Suggested order of work``, ``技术债 & 未来改进``)
    _PLAN_LEAD + r"(?:what['’]?s\s+next|próximos\s+(?:passos|pasos)|trabajo\s+pendiente|"
    r"prochaines\s+étapes)\b|^\W*(?:suggested|recommended)\s+order\s+of\s+work\W*$|未来(?:改进|计划|优化|工作)",
    # a record of the file's own versions or edits (``Version History``, ``Corrections History``)
    r"^\W*(?:version|update|revision|edit|corrections?)\s+history\W*$",
    # what was put off or left out on purpose: a plan, not a lesson (``What we deferred``,
    # ``Won't do``, ``明确不做的功能``)
    r"^\W*(?:what\s+(?:we|i)\s+)?(?:deferred|postponed|parked)(?:\s+(?:items|work|features|for\s+later))?\W*$|"
    r"^\W*(?:won['’]?t\s+do|not\s+doing|will\s+not\s+do)\W*$|^(?:明确)?不做的?(?:功能|事项|事情|内容)?$",
    # general advice closing a file of lessons (``General Principles``, ``通用建议``): their summary
    r"^\W*(?:\d+[.)]?\s*)?(?:general|overall|guiding)\s+(?:principles|advice|recommendations|guidelines)\W*$|"
    r"^\W*(?:[\d一二三四五六七八九十]+[、.．]?\s*)?通用(?:建议|原则|准则|避坑指南)",
    _PLAN_LEAD + r"(?:(?:improvement|product|tech(?:nical)?|feature)\s+)?(?:backlog|to-?dos?)$",
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
    r"^(?:шаблон|формат)(?:\s+записи)?$|^(?:vorlage|modèle|plantilla|modelo)\b|模板|テンプレート|템플릿|書式|תבנית",
    # how to run the project, or what to do when in doubt: a procedure beside the lessons, none
    # of them (``How to run it``, ``Debugging Failed Tests``, ``When in doubt: check … first``)
    _IN_DOUBT,
    r"^\W*how\s+to\s+(?:run|test|debug|start|build)\b",
    r"^\W*(?:running|debugging)\s+(?:the\s+)?(?:failed\s+|failing\s+)?tests$",
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

# rules kept for later work are rules (``Rules for Future Development``), not a plan
_RULES_FOR = re.compile(
    r"^\W*(?:\w+\s+)?(?:rules|regras|reglas|règles|regeln)\s+(?:for|para|pour|für)\b", re.IGNORECASE
)

_META_HINTS = (
    *("in doubt", "unsure", "tests"),
    *("add", "how to", "format", "templat", "content", "index", "appendix", "change", "roadmap", "see also"),
    *("glossary", "vocabulary", "terminolog", "definitions", "terms", "用語", "术语", "術語", "용어"),
    *("deferred", "postponed", "parked", "won't", "won’t", "not doing", "will not", "不做"),
    *("future", "potential", "follow", "next", "backlog", "todo", "to-do", "futur", "quien"),
    *("planned", "upcoming", "contact", "reporting", "report a", "cómo", "como ", "qué", "que debe"),
    *("instruc", "regla", "filing", "cara ", "ideas", "this page", "example", "sample"),
    *(
        "related",
        "bug report",
        "been reported",
        "relationship",
        "其他文",
        "help",
        "informat",
        "include",
        "信息收集",
        "報告",
        "history",
        "nächste",
        "próxim",
        "pendiente",
        "order of",
        "prochaines",
        "未来",
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
        *("분류", "카테고리", "分类", "分類", "类别", "類別", "カテゴリ"),
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
        "תבנית",
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

_ASIDE_END = re.compile(r"\s*(?:\([^()]*\)|（[^（）]*）)$")

# The parts of a report around its lessons (its summary, how it was tested, what comes next),
# when they sit at the top of the file; under a lesson, ``Summary`` is that lesson's field.
_REPORT_PARTS = re.compile(
    r"^(?:(?:[\w-]+\s+){0,3}(?:summary|rationale)(?:\s+table)?|overview|conclusions?|"
    # a summary named after a colon or a dash (``Summary: What To Expect``, ``SUMMARY — TOP 5 …``)
    r"summary\s*[:—–-]\s*\S.*|"
    # a summary in other languages (``Zusammenfassung``, ``最佳实践总结``, ``요약``)
    r"(?:[\w-]+\s+)?(?:zusammenfassung|résumé|resumen|resumo|итоги|резюме)|\w{0,8}(?:总结|小结|まとめ|要約|요약)|"
    r"test(?:ing)?\s+(?:environment|matrix|setup)|what\s+to\s+document\s+next|"
    r"documentation\s+updates\b.*|next\s+steps(?:\s+priorities)?|recommended\s+actions|(?:final\s+)?recommendations?(?:\s+for\s+[\w\s-]{1,40})?|decision\s+log|"
    r"(?:[\w-]+\s+){0,2}benefits(?:\s+achieved)?|(?:current\s+)?(?:project\s+)?status|"
    # a reference of commands kept beside the lessons, and general advice on debugging
    r"(?:(?:useful|important|common|handy|durable|operating|key|quick|test)\s+){1,2}(?:commands|shortcuts)"
    r"(?:\s+to\s+remember|\s+for\s+[\w\s]{1,30})?|(?:\w+\s+)?cheat\s*sheet|quick\s+reference(?:\s*[—–:-].*)?|速查表|"
    r"general\s+debugging|quick\s+diagnos(?:is|tics?)|advanced\s+troubleshooting|"
    r"logs?\s+(?:and|et|und|y|e|&)\s+diagnosti(?:cs?|ques?|cos|k)|инструменты\s+отладки|debug(?:ging)?\s+(?:tips|techniques|tools|mode)|デバッグ\s*(?:tips|のコツ)|"
    r"(?:调试|排查|排错)(?:技巧|方法|步骤|流程|思路)|"
    # a checklist distilled from the lessons, to run before work (not an audit's findings)
    r"(?:(?:prevention|testing|release|review|pre-?\w+|before\s+\w+|quick[- ]fix(?:es)?|debug(?:ging)?|"
    r"troubleshooting|verification)\s+|(?:the\s+)?(?:final\s+)?)checklist(?:\s+(?:for|de|za|für|pour|para)\s+.+)?|"
    r"\w{0,6}检查清单|\w{0,6}チェックリスト|"
    # its statistics and the tracker table summing up the issues above
    r"key\s+takeaways?|tl;?\s?dr\b.*|(?:(?:issues?|bugs?|project)\s+)?(?:statistics|stats)|(?:项目|項目)?(?:统计|統計)|estatísticas|statistiken|"
    r"issue\s+tracking|問題追蹤|问题追踪|status\s+(?:overview|table)|"
    # how the issues were found, and the features that work: the report's frame, not an issue
    r"how\s+(?:this|these|it|they)\s+(?:was|were)\s+found|discovery\s+method\b.*|"
    # where the logs are: a reference beside the problems (``## Log Locations``, ``## Log Files``)
    r"(?:key\s+|debug\s+)?log\s+(?:locations?|files)|where\s+to\s+find\s+(?:the\s+)?logs|"
    # how to get back to a working state: a procedure beside the problems (``## Recovery Procedures``)
    r"recovery(?:\s+(?:procedures?|steps|commands|playbook))?|"
    r"(?:current(?:ly)?\s+)?working\s+features|(?:confirmed|verified)\s+working|needs?\s+(?:more\s+)?testing|"
    # what comes after the lessons (``## Next``, ``## Future Enhancements & Version 2 Roadmap``)
    r"(?:what'?s\s+)?next|future\s+(?:work|enhancements?|improvements?|plans?)(?:\s*(?:&|and)\s+.*)?|"
    # the work not done yet, beside the issues met (``## In-Progress / Not Yet Implemented``)
    r"(?:in[- ]progress|not\s+yet\s+implemented)"
    r"(?:\s*(?:/|&|and)\s*(?:in[- ]progress|not\s+yet\s+implemented))?)$",
    re.IGNORECASE,
)


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


def _tree(hints: Iterable[str]) -> str:
    """``a(?:dd|bout)|f(?:ormat|ollow)``: ``hints`` as one alternation, a tree of their letters:
    a search tries, at each character, only the hints starting with it, and of those only the
    ones going on with the next (a plain alternation would try every hint at every character)."""
    rests: dict[str, list[str]] = {}
    for hint in hints:
        rests.setdefault(hint[:1], []).append(hint[1:])  # ``futur`` ends where ``future`` goes on: ``e|``
    return "|".join(
        re.escape(first + rest[0]) if len(rest) == 1 else f"{re.escape(first)}(?:{_tree(rest)})"
        for first, rest in rests.items()
    )


# Whether a title holds one of the hints, in one search: an ASCII title is searched for the
# ASCII hints alone (none other is in ASCII text), as the others would slow every search.
_ASCII_META_HINT = re.compile(_tree(hint for hint in _META_HINTS if hint.isascii()))
_META_HINT = LazyPattern(_tree(_META_HINTS))  # compiled for the first title outside ASCII


@lru_cache(maxsize=4096)
def is_meta(title: str) -> bool:
    """A section about the file itself (how to add, a template, contents), by its words: code it
    quotes (``project_template_tasks``, ``index.ts``) names the project's things, not the file's."""
    lowered = title.lower()  # a hint first, by substring
    if (_ASCII_META_HINT if lowered.isascii() else _META_HINT.compiled).search(lowered) is None:
        return False
    quoted = title.count("`") // 2  # each code span is a word of the title's length
    if quoted:
        title = CODE_SPAN.compiled.sub(" ", title)
    text = _SYMBOL_LEAD.sub("", plain(title))  # ``🔄 Maintenance`` as ``Maintenance``
    core = _ASIDE_END.sub("", text) or text  # less an aside, in either script's parentheses
    # the title or its words before an aside (``使い方（このテンプレを導入した…）``, ``Usage (for agents)``)
    if (
        not _META.compiled.search(text)
        and (core == text or not _META.compiled.search(core))
        and (not _LATER.compiled.search(text) or names_lessons(text) or _RULES_FOR.match(text))
    ):
        return False
    # a long title mentioning a template or a roadmap states a lesson about one; only how to add
    # to the file, or the file itself, is meta at any length
    return words(core) + quoted <= 5 or bool(_META_AT_LENGTH.compiled.search(text))


# the symbols a title may open with (``🔄 ``, ``→ ``), before its first word, number or bracket
_SYMBOL_LEAD = re.compile(r"^[^\w(\[]+(?=[\w(\[])")

_META_AT_LENGTH = LazyPattern(
    _IN_DOUBT + r"|when\s+to\s+add|how\s+to\s+(?:add|write|use|contribute)|adding\s+(?:an?\s+)?(?:new\s+)?"
    r"(?:entry|entries|lessons?|gotchas?)|entry\s+(?:format|template)|^notes\s+on\s+scope\b|\bthis\s+(?:file|doc|document|documentation)\b|"
    r"\bwhen\s+(?:filing|reporting|opening)\s+an?\s+(?:issue|bug)\W*$|\bwould\s+improve\s+next\W*$|"
    r"^\W*check\s+(?:to\s+see\s+)?(?:if|whether)\s+(?:the|this|your)\s+(?:issue|bug|problem)\s+"
    r"(?:has\s+been|was|is\s+already)\s+reported"
)
