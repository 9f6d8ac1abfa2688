// The season's standings (pages/standings.js).
// Each key's Russian and English side by side; static/js/i18n.js joins the catalogues.
export default {
  "standings.title": ["Турнирная таблица", "Standings"],
  "standings.season": ["Сезон", "Season"],
  "standings.order": ["Места по", "Ranked by"],
  "standings.allTime": ["За всё время", "All-time"],
  "standings.allTimeHint": ["Все клубные вечера.", "Every club night."],
  "standings.span": ["С {first} по {last}.", "From {first} to {last}."],
  "standings.minimum": ["В зачёт — от {n} {pulkas}.", "Ranked from {n} {pulkas}."],
  "standings.none": ["В этом сезоне клубных пулек ещё не было.", "No club pulka has been played in this season yet."],
  "standings.by.whists": ["вистам за пульку", "whists per pulka"],
  "standings.by.money": ["деньгам за пульку", "money per pulka"],
  "standings.by.pulkas": ["числу пулек", "pulkas played"],
  "standings.by.nights": ["числу вечеров", "nights present"],
  "standings.by.rating": ["рейтингу", "rating"],
  "standings.rank": ["Место", "Rank"],
  "standings.wpp": ["Вистов за пульку", "Whists per pulka"],
  "standings.mpp": ["Денег за пульку", "Money per pulka"],
  "standings.nights": ["Вечеров", "Nights"],
  "standings.ordinal": ["Рейтинг", "Rating"],
  "standings.mu": ["μ ± σ", "μ ± σ"],
  "standings.ratingHint": ["Рейтинг — модель Плакетта — Льюса (OpenSkill) по итогам пулек: μ − 3σ, общий за всё время. Серые строки — меньше пулек, чем нужно для зачёта.", "The rating is the Plackett-Luce model (OpenSkill) over pulka results: μ − 3σ, all-time. Grey lines have fewer pulkas than the minimum."],
};
