"""Word lists for naming themes (bot.library.theme_names): what every abstract says, and which words are adjectives.

Lists only, lower case; how they are used is bot.library.theme_names's business.
"""

from __future__ import annotations


def _listed(text: str) -> frozenset[str]:
    """Example: _listed("show shows") -> frozenset({'show', 'shows'})"""
    return frozenset(text.split())


# At neither end of a name, nor inside one: the vocabulary every abstract uses to say what it did.
NEVER = _listed(
    """
    show shows shown showing become becomes became becoming propose proposes proposed proposing present presents
    presented introduce introduces introduced introducing demonstrate demonstrates demonstrated achieve achieves
    achieved achieving improve improves improved improving outperform outperforms outperforming yield yields
    provide provides provided enable enables enabled enabling allow allows allowed use uses used using leverage
    leverages leveraging remain remains make makes made making study studies studied investigate investigates
    address addresses addressing consider considers given give gives obtain obtains lead leads leading reduce
    reduces reducing increase increases require requires required requiring develop develops developed apply
    applies applied evaluate evaluates evaluated observe observes observed suggest suggests find finds found
    capture captures capturing solve solves solving learn learns handle handles preserve preserves preserving
    match matches matching mitigate mitigates produce produces producing construct constructs constructing
    maintain maintains enforce enforces enforcing limit limits bridge bridges bridging exploit exploits
    exploiting rely relies relying fail fails struggle struggles tend tends aim aims seek seeks ensure ensures
    ensuring incorporate incorporates integrate integrates combine combines combining extend extends achieve
    based novel new existing extensive various different effective efficient significant significantly
    state-of-the-art strong stronger simple standard recent prior key first second third large larger small
    smaller high higher low lower better best good previous current common general main several multiple
    many much more most less least few fewer other others same similar certain particular specific overall
    one two three four five single own further rather together thereby therefore moreover furthermore instead
    results result performance experiments experiment experimental empirical empirically approach approaches
    framework frameworks paper work works problem problems challenge challenges challenging benchmarks
    baseline baselines improvement improvements gains gain way ways number numbers amount lack need needs
    across via however while thus hence also yet still even only just often always never well both each every
    either such into onto within without between among through toward towards upon per over under
    including whether available able due crucial critical important widely wide broad range ranges remarkable
    substantial superior competitive comprehensive promising practical real-world fundamental potential
    paradigm paradigms gap gaps insight insights issue issues limitation limitations advantage advantages
    effectiveness efficiency superiority properties property aspect aspects context contexts fact manner
    extensive scenario scenarios variety end art field fields area areas topic topics goal goals during
    average averaged typically typical usually additionally specifically particularly notably github https http
    www com url repository publicly open-source source up down out corresponding following underlying resulting
    remaining emerging arising ongoing respective respectively
    because although though since when whenever where wherever whereas which whose whom what why how who unless
    until once after before
    """
)
# Fine inside a phrase ("reward models", "reinforcement learning"), never the whole of a name.
NOT_ALONE = _listed(
    """
    model models modeling learning network networks training data dataset datasets task tasks method methods
    system systems policy policies algorithm algorithms agent agents representation representations information
    function functions process processes setting settings objective objectives optimization loss losses
    structure structures analysis generation inference evaluation language languages accuracy quality time
    cost costs space spaces level levels set sets input inputs output outputs feature features approach
    theory design error errors step steps stage stages rate rates signal signals domain domains distribution
    distributions sample samples value values case cases type types form forms term terms factor factors
    tool tools component components module modules scale capability capabilities behavior behaviors behaviour
    application applications technique techniques mechanism mechanisms strategy strategies solution solutions
    architecture architectures pipeline pipelines response responses prediction predictions parameter
    parameters target targets reference references interaction interactions supervision trajectory trajectories
    environment environments metric metrics computation framework state states action actions code size
    ability abilities human humans text image images power
    """
)
# Adjectives a suffix rule would miss; they end no name ("sparse" alone says nothing).
ADJECTIVES = _listed(
    """
    sparse dense safe robust deep shallow fast slow stable unstable simple complex hard easy open closed fixed
    free full partial direct indirect joint diverse rich poor noisy clean optimal suboptimal consistent
    inconsistent efficient sufficient different independent dependent recent relevant significant important
    redundant dominant coherent prominent intelligent frequent latent salient inherent transparent equivalent
    scalable reliable explicit implicit accurate precise unknown known aware online offline long short linear
    nonlinear similar regular irregular singular circular modular molecular cellular tabular popular
    """
)
ADJECTIVE_ENDINGS = ("ly", "ive", "ous", "able", "ible", "ful", "less", "ical", "ic", "al", "ed", "ant", "ent")
# The last part of an adjectival compound: "token-level", "model-based", "training-free".
ADJECTIVE_PARTS = _listed(
    """
    level based aware free wise like specific agnostic dependent invariant efficient scale grained driven guided
    constrained aligned oriented intensive friendly style step time order shot quality resolution dimensional
    """
)
# Nouns by their ending: a one-word name without further evidence.
NOUN_ENDINGS = ("tion", "sion", "ment", "ness", "ity", "ance", "ence", "ism", "ogy", "ure", "ship", "er", "ers")
# Nouns with an adjective's ending.
NOUNS = _listed(
    """
    retrieval signal interval trial proposal removal arrival approval survival tutorial journal material terminal
    animal manual rival topic logic metric metrics music traffic arithmetic heuristic heuristics
    epidemic clinic critic mechanic objective alternative incentive derivative perspective narrative primitive
    primitives archive motive executive initiative directive speed seed seeds feed agent gradient student
    component environment content patient client element segment event intent percent variant participant
    assistant opponent constituent coefficient recipient ingredient quotient respondent incident accident
    president resident tangent parent talent tenant constant invariant quadrant descendant embedding
    """
)
# A word after one of these is used as a noun ("the capture"); after one of VERB_CUES, as a verb ("to capture").
DETERMINERS = _listed("the a an this these those its their our each every such no any")
VERB_CUES = _listed("to we they it can may might will would could should must also often not which who")
