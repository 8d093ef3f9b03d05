/**
 * Text in scripts the mixed corpus does not cover, generated from a seed: a few everyday sentences per
 * language (greetings, a question, a sentence about software, written for this corpus), their words
 * recombined, and one word in ten a pseudo-word drawn from the script's letters (a rare word makes
 * more tokens than a common one: the hard case for an estimator that must not under-count).
 */
import type { CorpusSample } from './mixed-corpus.js';
import { createRandom, type Random } from './random.js';

interface Script {
  name: string;
  /** Code point ranges of letters (inclusive). */
  letters: Array<[number, number]>;
  /** Marks that follow a letter (vowel signs, viramas), optional. */
  marks?: Array<[number, number]>;
  sentences: string[];
  /** Sentence end. */
  stop: string;
}

const SCRIPTS: Script[] = [
  {
    name: 'armenian',
    letters: [[0x0561, 0x0586]],
    sentences: [
      'Բարև ձեզ, ինչպե՞ս եք։',
      'Ես սիրում եմ ծրագրավորումը։',
      'Ֆայլը չի գտնվել, խնդրում ենք նորից փորձել։',
    ],
    stop: '։',
  },
  {
    name: 'georgian',
    letters: [[0x10d0, 0x10f0]],
    sentences: ['გამარჯობა, როგორ ხარ?', 'მე მიყვარს პროგრამირება.', 'ფაილი ვერ მოიძებნა, სცადეთ თავიდან.'],
    stop: '.',
  },
  {
    name: 'thai',
    letters: [[0x0e01, 0x0e2e]],
    marks: [[0x0e31, 0x0e3a]],
    sentences: ['สวัสดีครับ วันนี้อากาศดีมาก', 'ผมชอบเขียนโปรแกรม', 'ไม่พบไฟล์ กรุณาลองใหม่อีกครั้ง'],
    stop: ' ',
  },
  {
    name: 'khmer',
    letters: [[0x1780, 0x17a2]],
    marks: [[0x17b6, 0x17c5]],
    sentences: ['សួស្តី តើអ្នកសុខសប្បាយទេ?', 'ខ្ញុំចូលចិត្តសរសេរកម្មវិធី។', 'រកមិនឃើញឯកសារ សូមព្យាយាមម្តងទៀត។'],
    stop: '។',
  },
  {
    name: 'devanagari',
    letters: [[0x0915, 0x0939]],
    marks: [[0x093e, 0x094c]],
    sentences: ['नमस्ते, आप कैसे हैं?', 'मुझे प्रोग्रामिंग पसंद है।', 'फ़ाइल नहीं मिली, कृपया फिर से प्रयास करें।'],
    stop: '।',
  },
  {
    name: 'bengali',
    letters: [[0x0995, 0x09b9]],
    marks: [[0x09be, 0x09cc]],
    sentences: ['নমস্কার, আপনি কেমন আছেন?', 'আমি প্রোগ্রামিং ভালোবাসি।'],
    stop: '।',
  },
  {
    name: 'tamil',
    letters: [[0x0b95, 0x0bb9]],
    marks: [[0x0bbe, 0x0bcc]],
    sentences: ['வணக்கம், நீங்கள் எப்படி இருக்கிறீர்கள்?', 'எனக்கு நிரலாக்கம் பிடிக்கும்.'],
    stop: '.',
  },
  {
    name: 'telugu',
    letters: [[0x0c15, 0x0c39]],
    marks: [[0x0c3e, 0x0c4c]],
    sentences: ['నమస్కారం, మీరు ఎలా ఉన్నారు?', 'నాకు ప్రోగ్రామింగ్ ఇష్టం.'],
    stop: '.',
  },
  {
    name: 'sinhala',
    letters: [[0x0d9a, 0x0dc6]],
    marks: [[0x0dcf, 0x0ddf]],
    sentences: ['ආයුබෝවන්, ඔබට කොහොමද?', 'මම ක්‍රමලේඛනයට කැමතියි.'],
    stop: '.',
  },
  {
    name: 'lao',
    letters: [[0x0e81, 0x0eae]],
    sentences: ['ສະບາຍດີ, ເຈົ້າສະບາຍດີບໍ່?', 'ຂ້ອຍມັກຂຽນໂປຣແກຣມ'],
    stop: ' ',
  },
  {
    name: 'myanmar',
    letters: [[0x1000, 0x102a]],
    marks: [[0x102b, 0x1032]],
    sentences: ['မင်္ဂလာပါ၊ နေကောင်းလား။', 'ကျွန်တော် ပရိုဂရမ်ရေးရတာ ကြိုက်တယ်။'],
    stop: '။',
  },
  {
    name: 'tibetan',
    letters: [[0x0f40, 0x0f6c]],
    sentences: ['བཀྲ་ཤིས་བདེ་ལེགས།', 'ཁྱེད་རང་སྐུ་གཟུགས་བདེ་པོ་ཡིན་པས།'],
    stop: '།',
  },
  {
    name: 'ethiopic',
    letters: [[0x1200, 0x1357]],
    sentences: ['ሰላም፣ እንዴት ነህ?', 'ፕሮግራሚንግ እወዳለሁ።'],
    stop: '።',
  },
  {
    name: 'hebrew',
    letters: [[0x05d0, 0x05ea]],
    sentences: ['שלום, מה שלומך?', 'אני אוהב לתכנת.', 'הקובץ לא נמצא, נסו שוב.'],
    stop: '.',
  },
  {
    name: 'arabic',
    letters: [[0x0627, 0x064a]],
    sentences: ['مرحبا، كيف حالك؟', 'أنا أحب البرمجة.', 'لم يتم العثور على الملف، حاول مرة أخرى.'],
    stop: '.',
  },
  {
    name: 'syriac',
    letters: [[0x0710, 0x072c]],
    sentences: ['ܫܠܡܐ ܥܠܝܟܘܢ'],
    stop: '.',
  },
  {
    name: 'greek',
    letters: [[0x03b1, 0x03c9]],
    sentences: [
      'Γεια σας, τι κάνετε;',
      'Μου αρέσει ο προγραμματισμός.',
      'Το αρχείο δεν βρέθηκε, δοκιμάστε ξανά.',
    ],
    stop: '.',
  },
  {
    name: 'vietnamese',
    letters: [
      [0x0061, 0x007a],
      [0x1ea1, 0x1ef9],
    ],
    sentences: [
      'Xin chào, bạn có khỏe không?',
      'Tôi thích lập trình.',
      'Không tìm thấy tệp, vui lòng thử lại.',
    ],
    stop: '.',
  },
  {
    name: 'mongolian_cyrillic',
    letters: [
      [0x0430, 0x044f],
      [0x04e9, 0x04e9],
      [0x04af, 0x04af],
    ],
    sentences: ['Сайн байна уу?', 'Би програмчлалд дуртай.'],
    stop: '.',
  },
  {
    name: 'cherokee',
    letters: [[0x13a0, 0x13f4]],
    sentences: ['ᎣᏏᏲ ᏙᎯᏧ?'],
    stop: '.',
  },
  {
    name: 'canadian_syllabics',
    letters: [[0x1401, 0x166c]],
    sentences: ['ᐊᐃᖓᐃ, ᖃᓄᐃᑦᑎᐊᖅᐱᑦ?'],
    stop: '.',
  },
];

function pick(random: Random, ranges: Array<[number, number]>): string {
  const [low, high] = random.pick(ranges);
  return String.fromCodePoint(random.int(low, high));
}

function pseudoWord(random: Random, script: Script): string {
  let word = '';
  for (let index = random.int(2, 9); index > 0; index--) {
    word += pick(random, script.letters);
    if (script.marks && random.chance(0.4)) word += pick(random, script.marks);
  }
  return word;
}

function sample(random: Random, script: Script, maxChars: number): string {
  const words = script.sentences.flatMap((sentence) => sentence.split(' '));
  const target = random.int(20, maxChars);
  let text = '';
  while (text.length < target) {
    const roll = random.next();
    if (roll < 0.3) text += `${random.pick(script.sentences)} `;
    else if (roll < 0.9)
      text += `${Array.from({ length: random.int(2, 8) }, () => random.pick(words)).join(' ')}${script.stop} `;
    else text += `${pseudoWord(random, script)} `;
    if (random.chance(0.1)) text += '\n';
  }
  return text.trimEnd();
}

/** Script names, for the accuracy table. */
export const SCRIPT_NAMES = SCRIPTS.map((script) => script.name);

/**
 * `perScript` samples of each script, deterministic in `seed`.
 *
 * @example
 * const samples = multilingualSamples({ seed: 1, perScript: 8 });
 */
export function multilingualSamples({
  seed,
  perScript = 8,
  maxChars = 1_500,
}: {
  seed: number;
  perScript?: number;
  maxChars?: number;
}): CorpusSample[] {
  const random = createRandom(seed);
  const samples: CorpusSample[] = [];
  for (const script of SCRIPTS)
    for (let index = 0; index < perScript; index++)
      samples.push({
        id: `${script.name}-${seed}-${index}`,
        contentClass: `script_${script.name}`,
        text: sample(random, script, maxChars),
      });
  return samples;
}
