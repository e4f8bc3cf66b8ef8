"""The one contract every bias measure follows.

A method is a pure function ``compute(inputs, settings, seed) -> Score`` of numpy arrays,
plus a declaration (:class:`Method`) of what it is: its name, the paper that defines it, its
family, the kind of input it consumes, the settings it reads, the word-set roles it needs, the
encodings and variants it runs on (primary first), the context source the paper tables show it
on, what swapping the two target sets does to its effect size, and the quantity injected into
the ground-truth study's models its score should follow (:class:`Truth`). The settings it reads
are recorded in each of its rows and enter the row's signature (``biasbench.rows``). The workflow,
the tables and the figures read these declarations from the registry
(``biasbench.methods.registry``); nothing else names a method.

Input kinds, one dataclass each (what the scoring layer extracts for the family):

``ContextVectors``    embedding family: per role, one (contexts, dim) matrix per stimulus
``TemplateLogProbs``  probability family on templates: log p_t / log p_p per template,
                      attribute and target (LPBS, eqs. 8-10)
``ContextLogProbs``   probability family on natural contexts: per (target, attribute) pair,
                      the log p_t / log p_p of each sampled context (probability-based CEAT)
``PairScores``        a model's score of both sentences of each sentence pair (CrowS-Pairs)
``TripleScores``      of the three candidates of each StereoSet item
``Associations``      paired prior-corrected associations of male and female words (BEC-Pro)
``FillCounts``        per template, integer counts of each fill of the slot (DisCo)
``Resolutions``       extrinsic: per coreference item, whether the model chose the referent
``GroupAssociations`` distribution family: per target, its strength of association with each
                      of k groups, and the reference distribution (DivDist)

A role with no usable item raises :class:`~biasbench.errors.EmptySetError`, never NaN.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from biasbench.config import section_defaults
from biasbench.errors import EmptySetError
from biasbench.rows import Score

FAMILIES = ("embedding", "probability", "distribution", "extrinsic")
#: what swapping the two target sets X and Y (or the two sides of a pair) does to a method's
#: effect size
SWAPS = ("negates", "keeps", "complements")  # complements: a percentage p becomes 100 - p
TARGETS = ("X", "Y")
#: the words a method's word-level test (``p_word``) exchanges: the targets X u Y, the
#: attributes A u B, or none (its units are items, sentence pairs, professions)
PERMUTES = ("targets", "attributes", None)


#: the schema's defaults of the ``scoring`` section: the one place a default lives
_DEFAULTS = section_defaults("scoring")


def _setting(name: str, key: str):
    """A field of :class:`Settings`: its default the schema's, ``key`` its short name."""
    return field(default=_DEFAULTS[name], metadata={"key": key})


@dataclass(frozen=True)
class Settings:
    """Statistical settings shared by the methods (``scoring`` in the config), defaulting to
    the schema's values."""

    exact_max: int = _setting("exact_max", "exact")  # enumerate every partition up to this many
    n_samples: int = _setting("n_samples", "samples")  # otherwise this many sampled partitions
    ddof: int = _setting("ddof", "ddof")  # standard deviation convention of effect sizes
    unit: str = _setting("unit", "unit")  # set items: every context, or each stimulus' mean one
    ceat_samples: int = _setting("ceat_samples", "ceat")  # CEAT-style methods: samples combined
    same_samples: int = _setting("same_samples", "same")  # SAME: attribute re-splits at most


#: each setting's short name in a row's ``settings`` column (as in sacrebleu's signatures)
SETTING_KEYS = {f.name: f.metadata["key"] for f in fields(Settings)}


@dataclass(frozen=True)
class ContextVectors:
    """Per role, one (contexts, dim) matrix per stimulus (a static word has one context);
    ``pairs``: the definitional pairs (A[i], B[i]) both of whose words have contexts, each as
    (contexts of a, contexts of b), or None when the word set declares none; ``strata``: each
    stimulus' word-piece count (the stratified word-level test, ``p_word_strata``)."""

    groups: Mapping[str, Sequence[np.ndarray]]
    pairs: Sequence[tuple[np.ndarray, np.ndarray]] | None = None
    #: per role, each stimulus' stratum in the order of ``groups``: its number of word
    #: pieces under the model's tokenizer (None: static vectors, no tokenizer)
    strata: Mapping[str, Sequence[int]] | None = None
    _derived: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def derived(self, key: Hashable, compute: Callable[[], object]) -> object:
        """``compute()``, once per key for these vectors: the methods given the same inputs
        share what they derive from them (SAME and its skew: one attribute-split null)."""
        if key not in self._derived:
            self._derived[key] = compute()
        return self._derived[key]

    def require(self, roles: Sequence[str]) -> None:
        for role in roles:
            if not len(self.groups.get(role, ())):
                raise EmptySetError(f"set {role} has no stimulus with a usable encoding")

    def swapped(self) -> ContextVectors:
        strata = self.strata
        if strata is not None:
            strata = {**strata, "X": strata["Y"], "Y": strata["X"]}
        groups = {**self.groups, "X": self.groups["Y"], "Y": self.groups["X"]}
        return replace(self, groups=groups, strata=strata)


@dataclass(frozen=True)
class TemplateLogProbs:
    """log p_t and log p_p, each (templates, attributes A then B, targets X then Y)."""

    log_pt: np.ndarray
    log_pp: np.ndarray
    n_x: int
    n_a: int

    def require(self, roles: Sequence[str]) -> None:
        n_t, n_attr = self.log_pt.shape[2], self.log_pt.shape[1]
        sizes = {"X": self.n_x, "Y": n_t - self.n_x, "A": self.n_a, "B": n_attr - self.n_a}
        for role in roles:
            if sizes[role] < 1:
                raise EmptySetError(f"set {role} has no stimulus")

    def swapped(self) -> TemplateLogProbs:
        order = np.r_[self.n_x : self.log_pt.shape[2], 0 : self.n_x]
        return TemplateLogProbs(
            self.log_pt[:, :, order], self.log_pp[:, :, order], len(order) - self.n_x, self.n_a
        )


@dataclass(frozen=True)
class ContextLogProbs:
    """Per (target, attribute) pair, an (n_contexts, 2) array of [log p_t, log p_p] of its
    sampled contexts; ``sets`` names the stimuli of roles X, Y, A and B."""

    cells: Mapping[tuple[str, str], np.ndarray]
    sets: Mapping[str, tuple[str, ...]]

    def require(self, roles: Sequence[str]) -> None:
        for role in roles:
            if not self.sets.get(role):
                raise EmptySetError(f"set {role} has no stimulus")

    def swapped(self) -> ContextLogProbs:
        return replace(self, sets={**self.sets, "X": self.sets["Y"], "Y": self.sets["X"]})


@dataclass(frozen=True)
class PairScores:
    """Per sentence pair, a model's score of the sentence that is more and the one that is less
    stereotyping (``more`` on every pair, whatever its direction), the pair's direction
    (CrowS-Pairs' stereo/antistereo, kept for reading) and its category (CrowS-Pairs; AUL)."""

    more: np.ndarray
    less: np.ndarray
    stereo: np.ndarray  # bool
    category: np.ndarray  # str

    def require(self, roles: Sequence[str]) -> None:
        if len(self.more) == 0:
            raise EmptySetError("set of sentence pairs has no pair")

    def swapped(self) -> PairScores:
        """The two sentences' roles exchanged: the more stereotyping becomes the less."""
        return replace(self, more=self.less, less=self.more)


@dataclass(frozen=True)
class TripleScores:
    """Per StereoSet item, the scores of its stereotype, anti-stereotype and unrelated
    candidates, and its target term (None: every item counts alike)."""

    stereotype: np.ndarray
    anti: np.ndarray
    unrelated: np.ndarray
    terms: np.ndarray | None = None

    def require(self, roles: Sequence[str]) -> None:
        if len(self.stereotype) == 0:
            raise EmptySetError("set of StereoSet items has no item")

    def swapped(self) -> TripleScores:
        return replace(self, stereotype=self.anti, anti=self.stereotype)


@dataclass(frozen=True)
class Associations:
    """Per sentence, a person word's prior-corrected association with a profession
    (BEC-Pro), paired: ``male[i]`` and ``female[i]`` come from the same template and
    profession with the male and the female person word. ``words``: per pair, the word pair
    it swaps (its male person word), the unit of the word-level test; None: every pair is
    its own unit."""

    male: np.ndarray
    female: np.ndarray
    words: np.ndarray | None = None

    def require(self, roles: Sequence[str]) -> None:
        if len(self.male) == 0:
            raise EmptySetError("set of person-profession pairs has no pair")

    def swapped(self) -> Associations:
        return replace(self, male=self.female, female=self.male)


@dataclass(frozen=True)
class FillCounts:
    """Per template, how often each fill of the [MASK] slot came up with the male and with
    the female filler of the other slot (DisCo), as integer counts."""

    counts: Sequence[Mapping[str, tuple[int, int]]]  # per template: fill -> (male, female)

    def require(self, roles: Sequence[str]) -> None:
        if not self.counts:
            raise EmptySetError("set of templates has no template")

    def swapped(self) -> FillCounts:
        return FillCounts([{w: (f, m) for w, (m, f) in t.items()} for t in self.counts])


@dataclass(frozen=True)
class Resolutions:
    """Per coreference item (WinoBias), whether the model resolved the pronoun to its
    referent, whether the item is pro-stereotypical (or anti-) and whether the pronoun is male
    (or female)."""

    correct: np.ndarray  # bool
    pro: np.ndarray  # bool
    male: np.ndarray  # bool

    def require(self, roles: Sequence[str]) -> None:
        for pro in (True, False):
            for male in (True, False):
                if not np.any((self.pro == pro) & (self.male == male)):
                    raise EmptySetError(
                        f"set of {'pro' if pro else 'anti'}-stereotypical items with a "
                        f"{'male' if male else 'female'} pronoun is empty"
                    )

    def swapped(self) -> Resolutions:
        """Pro- and anti-stereotypical items exchanged."""
        return replace(self, pro=~np.asarray(self.pro, bool))


@dataclass(frozen=True)
class GroupAssociations:
    """Per target (row), its non-negative strength of association with each of k groups
    (columns), and the reference distribution: one for all targets (k,), one per target
    (targets, k), or None for uniform. ``distance`` and ``negative`` are DivDist's options."""

    strengths: np.ndarray  # (targets, k)
    reference: np.ndarray | None = None
    distance: str = "l1"
    negative: str = "error"

    def require(self, roles: Sequence[str]) -> None:
        if self.strengths.ndim != 2 or self.strengths.shape[0] == 0:
            raise EmptySetError("set of targets has no target")
        if self.strengths.shape[1] < 2:
            raise EmptySetError("DivDist needs at least two groups")

    def references(self) -> np.ndarray:
        n, k = self.strengths.shape
        if self.reference is None:
            return np.full((n, k), 1 / k)
        return np.broadcast_to(np.asarray(self.reference, np.float64), (n, k))

    def swapped(self) -> GroupAssociations:
        """The groups in reverse order, with the reference: the distance does not change."""
        ref = None if self.reference is None else np.asarray(self.reference)[..., ::-1]
        return replace(self, strengths=self.strengths[:, ::-1], reference=ref)


INPUT_KINDS = (
    ContextVectors,
    TemplateLogProbs,
    ContextLogProbs,
    PairScores,
    TripleScores,
    Associations,
    FillCounts,
    Resolutions,
    GroupAssociations,
)
#: model kinds with contextual encodings (transformers, and ELMo's biLSTM)
CONTEXTUAL = ("transformer", "elmo")

#: the quantities injected into the ground-truth study's models, from an occupation's male
#: share p (the training bias) and debiaswe's stereotype score s (X: s > 0, Y: s < 0; rated:
#: s != 0); ``biasbench.studies.groundtruth.truth.injected_bias`` computes them
QUANTITIES = {
    "difference": "mean p of the X (male-stereotyped) occupations minus that of the Y ones",
    "direction": "mean p of the rated occupations minus 1/2",
    "spread": "standard deviation of the rated occupations' p",
    "magnitude": "mean |p - 1/2| over the rated occupations",
    "stereotype": "mean over the rated occupations of the stereotype-consistent share "
    "(p where s > 0, 1 - p where s < 0)",
}
#: where a method is held against its truth: the study's own test, or a data set's rows on
#: the injected category (its items restricted to it)
ON_STUDY, ON_DATA_SET = "study test", "data set"

#: the reasons several methods share
WHY_TEST = "a test of X against Y: its sign turns with the sets, so it follows their difference"
WHY_MAGNITUDE = "a magnitude (its value keeps when X and Y swap): it follows |p - 1/2|, not a side"
WHY_SLOT = "LPBS's log-probabilities of he and she at the slot, the filter's own quantity"
WHY_SHARE = "the share of items where the model prefers the stereotype: stereotype-consistent share"


@dataclass(frozen=True)
class Truth:
    """What a method's score should follow on the ground-truth study's models: one injected
    quantity (a key of :data:`QUANTITIES`) per construct, with the reason. A league of
    correlations is a ranking only when each method is held against the quantity its
    construct measures: a test of X against Y against the difference it contrasts, a
    magnitude against a magnitude, a data set's stereotype share against the
    stereotype-consistent share of the injection, on the category that was injected."""

    quantity: str | None  # a key of QUANTITIES; None: the score has no injected truth
    where: str  # ON_STUDY or ON_DATA_SET
    why: str
    #: the score reads the slot probabilities the learned-bias filter (R² of unmasking with
    #: training bias) selects models on: part of its rho on the kept models is the selection
    reads_filter: bool = False

    def __post_init__(self) -> None:
        if self.quantity is not None and self.quantity not in QUANTITIES:
            raise ValueError(
                f"truth: unknown quantity {self.quantity!r}; one of {list(QUANTITIES)}"
            )
        if self.where not in (ON_STUDY, ON_DATA_SET) or not self.why:
            raise ValueError(f"truth: bad place {self.where!r} or no reason")


@dataclass(frozen=True)
class Method:
    """A bias measure and what the workflow needs to know to run and show it."""

    name: str  # as in score rows and tables
    paper: str  # who defined it
    family: str  # embedding | probability | distribution | extrinsic
    consumes: type  # one of INPUT_KINDS
    compute: Callable[..., Score]  # compute(inputs, settings, seed) -> Score
    encodings: tuple[str, ...]  # representations it runs on, the paper's default first
    #: the injected quantity its score should follow on the ground-truth study's models, and
    #: why (the validity league holds it against that quantity alone)
    truth: Truth = field(kw_only=True)
    #: the Settings fields ``compute`` reads: they, and no other, enter its rows' signature
    reads: tuple[str, ...] = ()
    roles: tuple[str, ...] = ("X", "Y", "A", "B")
    variants: tuple[str, ...] = ("full",)  # word-set variants, the default first
    #: the variants that measure the default variant's data another way (a design choice a
    #: verdict may depend on); None: every variant does (the word sets' reduced and adjective
    #: forms). The others are parts of a data set (BEC-Pro's male rows, StereoSet's tasks)
    choices: tuple[str, ...] | None = None
    model_kinds: tuple[str, ...] = ("static", "transformer")
    context: str = "templates"  # the source paper tables show it on: words|templates|natural
    unit: str | None = None  # what a set item is; None: the configured unit
    swap: str = "negates"  # what swapping X and Y does to the effect size
    #: the words its word-level test exchanges (one of PERMUTES): a word-piece gap between
    #: those words, not the others, can make a null model's copies reject
    permutes: str | None = None
    #: its score reads each word vector's direction alone (cosines, unit rows): rescaling
    #: any vector leaves it unchanged, so on i.i.d. random directions its word tests are exact
    scale_free: bool = False
    #: the score of no bias where it is not what ``swap`` implies (0 for a signed difference
    #: or a magnitude, 50 for a percentage of stereotypical choices): MAC's 1, a quality's 100
    neutral: float | None = None
    #: the effect size alone, where ``compute``'s test costs far more (a data-set score's
    #: bootstrap standard error recomputes only this); None: ``compute``'s effect size
    effect: Callable[[Any], float] | None = None
    description: str = ""
    #: the code the default follows, "owner/repository: path" (the paper's equations where
    #: the authors published none); a departure from it is a named encoding or variant
    reference: str = ""

    def __post_init__(self) -> None:
        if self.family not in FAMILIES or self.swap not in SWAPS or self.permutes not in PERMUTES:
            raise ValueError(
                f"method {self.name}: bad family {self.family}, swap {self.swap} or permutes "
                f"{self.permutes}"
            )
        if self.consumes not in INPUT_KINDS or not self.encodings or not self.variants:
            raise ValueError(f"method {self.name}: incomplete declaration")
        if not set(self.choices or ()) <= set(self.variants[1:]):
            raise ValueError(f"method {self.name}: choices {self.choices} not among its variants")
        if not set(self.reads) <= set(SETTING_KEYS):
            raise ValueError(f"method {self.name}: reads unknown settings {self.reads}")

    @property
    def neutral_point(self) -> float:
        """The score of no bias: the declared one (``neutral``), else 50 for a percentage of
        stereotypical choices and 0 for a difference or a magnitude."""
        if self.neutral is not None:
            return self.neutral
        return 50.0 if self.swap == "complements" else 0.0

    def settings_of(self, settings: Settings) -> dict[str, object]:
        """The settings it reads, by short name: what its rows record and sign."""
        return {SETTING_KEYS[name]: getattr(settings, name) for name in self.reads}

    def encodings_for(self, available: Sequence[str]) -> list[str]:
        """The encodings it runs on among those a model provides, primary first."""
        return [e for e in self.encodings if e in available]

    def __call__(self, inputs, settings: Settings, seed: int) -> Score:
        if not isinstance(inputs, self.consumes):
            raise TypeError(f"{self.name} consumes {self.consumes.__name__}")
        inputs.require(self.roles)
        return self.compute(inputs, settings, seed)
