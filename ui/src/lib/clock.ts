// What a wrong workstation clock means to the user. Sign-in and renewal do not
// need the clocks to agree (Rx Desk compares the network's times with the
// network's); what a wrong clock spoils is the times a person reads.
import type { WrongClock } from '../bindings/ipc';

function span(minutes: number): string {
  if (minutes < 120) return `${minutes} minutes`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} hours` : `${Math.round(hours / 24)} days`;
}

/** The notice for a clock beyond the leeway; `null` when it is right. */
export function clockNotice(wrong: WrongClock | null | undefined): string | null {
  if (!wrong) return null;
  const way = wrong.ahead ? 'ahead of' : 'behind';
  return (
    `This computer's clock is ${span(wrong.minutes)} ${way} the network's. ` +
    'You can keep working, but times you read here (when a record was changed, when your session ends) may be wrong. ' +
    'Set the clock to the correct time — on Windows: Settings → Time & language → Date & time → Set time automatically.'
  );
}
