/**
 * First and last names by naming tradition, including non-ASCII spellings (José, Zoë, Łukasz, 田中) and
 * apostrophes (O'Brien), so that exports and CSV writers meet them in ordinary data.
 */
import { toAsciiSlug } from './ascii-slug.js';

/** A name as displayed and its ASCII form for handles and URLs. */
export interface NameEntry {
  readonly display: string;
  readonly ascii: string;
}

/** A naming tradition: its given names and family names. */
export interface NamePool {
  readonly first: readonly NameEntry[];
  readonly last: readonly NameEntry[];
}

/**
 * Names in Latin script, comma-separated (a line per argument, to keep the table readable); the ASCII
 * form is derived. Names in other scripts are written `display=Romanisation`.
 */
function names(...lines: string[]): readonly NameEntry[] {
  return Object.freeze(
    lines
      .flatMap((line) => line.split(','))
      .map((name) => name.trim())
      .filter((name) => name.length > 0)
      .map((name) => {
        const [display, romanised] = name.split('=') as [string, string | undefined];
        return { display, ascii: toAsciiSlug(romanised ?? display, '') };
      }),
  );
}

/** Every pool, by the key the country table refers to. */
export const NAME_POOLS = Object.freeze({
  english: {
    first: names(
      'James, Olivia, Liam, Emma, Noah, Ava, Ethan, Sophia, Mason, Isabella, Lucas, Mia, Zoë, Chloë',
      'Benjamin, Charlotte, Henry, Amelia, Daniel, Grace, Jack, Lily, Samuel, Hannah, Ryan, Madison, Renée',
    ),
    last: names(
      'Smith, Johnson, Williams, Brown, Jones, Miller, Davis, Wilson, Anderson, Taylor, Thomas, Moore',
      'Martin, Jackson, Thompson, White, Harris, Clark, Lewis, Walker, Young, Allen, King, Wright, Scott',
      'Green, Baker, Adams, Nelson, Hill, Campbell, Mitchell, Roberts, Carter, Evans, Turner, Parker',
    ),
  },
  irish: {
    first: names('Siobhán, Seán, Aoife, Ciarán, Niamh, Pádraig, Róisín, Eoin, Orla, Declan, Caoimhe'),
    last: names(
      "O'Brien, O'Connor, O'Sullivan, Murphy, Kelly, Byrne, Walsh, McCarthy, O'Neill, Doyle, D'Arcy",
    ),
  },
  spanish: {
    first: names(
      'José, María, Juan, Lucía, Alejandro, Sofía, Javier, Carmen, Andrés, Ana, Diego, Raúl, Inés',
    ),
    last: names(
      'García, Fernández, González, Rodríguez, López, Martínez, Sánchez, Pérez, Gómez, Díaz, Hernández',
      'Ruiz, Jiménez, Muñoz, Álvarez, Ortega, Castillo, de la Cruz',
    ),
  },
  portuguese: {
    first: names('João, Maria, Pedro, Ana, Lucas, Beatriz, Gonçalo, Mariana, Tiago, Inês, Letícia'),
    last: names('Silva, Santos, Oliveira, Souza, Pereira, Costa, Almeida, Nascimento, Araújo, Conceição'),
  },
  german: {
    first: names('Jürgen, Anna, Lukas, Lena, Maximilian, Sophie, Felix, Marie, Jonas, Björn, Jörg, Ursula'),
    last: names('Müller, Schmidt, Schneider, Fischer, Weber, Meyer, Wagner, Becker, Hoffmann, Schäfer, Groß'),
  },
  french: {
    first: names('François, Chloé, Léa, Hugo, Camille, Louis, Manon, Théo, Élodie, Antoine, Jérôme, Gaëlle'),
    last: names("Martin, Bernard, Dubois, Robert, Petit, Durand, Leroy, Moreau, Lefèvre, Girard, L'Écuyer"),
  },
  polish: {
    first: names('Łukasz, Małgorzata, Piotr, Agnieszka, Krzysztof, Katarzyna, Paweł, Zofia, Michał, Tomasz'),
    last: names('Nowak, Kowalski, Wiśniewski, Wójcik, Kamiński, Lewandowski, Zieliński, Woźniak, Dąbrowski'),
  },
  japanese: {
    first: names('太郎=Taro, 花子=Hanako, 健太=Kenta, 美咲=Misaki, 翔太=Shota, 陽菜=Hina, 大輔=Daisuke'),
    last: names(
      '田中=Tanaka, 佐藤=Sato, 鈴木=Suzuki, 高橋=Takahashi, 渡辺=Watanabe, 伊藤=Ito, 山本=Yamamoto',
    ),
  },
  indian: {
    first: names('Aarav, Priya, Arjun, Ananya, Rohan, Diya, Vikram, Kavya, Rahul, Sneha, Aditya'),
    last: names('Sharma, Patel, Gupta, Singh, Kumar, Reddy, Iyer, Nair, Mehta, Chatterjee, Desai'),
  },
  nigerian: {
    first: names('Chinedu, Ngozi, Oluwaseun, Adaeze, Emeka, Funmilayo, Tunde, Chiamaka, Ifeanyi'),
    last: names('Okafor, Adeyemi, Okonkwo, Balogun, Eze, Nwosu, Adebayo, Ogunleye, Obi, Ibrahim'),
  },
  ivorian: {
    first: names('Kouadio, Aya, Yao, Adjoua, Koffi, Amenan, Serge, Aminata'),
    last: names("Kouassi, Koné, Traoré, Ouattara, Bamba, Diallo, N'Guessan"),
  },
  dutch: {
    first: names('Daan, Sanne, Bram, Fleur, Sem, Lotte, Joost, Maaike, Ruud, Anouk'),
    last: names('de Vries, van den Berg, Jansen, de Jong, Bakker, Visser, Smit, Meijer, van Dijk'),
  },
  nordic: {
    first: names('Søren, Åsa, Erik, Ingrid, Lars, Astrid, Mikkel, Freja, Sigrid, Anders, Maja'),
    last: names('Andersson, Johansson, Nielsen, Jensen, Hansen, Lindqvist, Bergström, Sørensen, Østergaard'),
  },
  italian: {
    first: names('Giuseppe, Giulia, Marco, Francesca, Luca, Chiara, Matteo, Alessia, Niccolò, Sara'),
    last: names("Rossi, Russo, Ferrari, Esposito, Bianchi, Romano, Colombo, Ricci, D'Angelo, De Luca"),
  },
  southAfrican: {
    first: names('Thabo, Naledi, Sipho, Lerato, Bongani, Zanele, Pieter, Annelie'),
    last: names('Nkosi, Dlamini, Mokoena, Ndlovu, van der Merwe, Botha, Khumalo, Naidoo'),
  },
} satisfies Record<string, NamePool>);

/** The key of one naming tradition in {@link NAME_POOLS}. */
export type NamePoolKey = keyof typeof NAME_POOLS;
