Feature: Zenity, GTK dialogs for scripts
  Each dialog writes the answer to a file when it closes, so each scenario
  checks what the program itself received.

  @sample
  Scenario: A name typed into an entry dialog
    Given I launch 'sh -c "zenity --entry --title=Greeting --text=\"Your name\" > answer.txt"'
    When I type 'Grace Hopper'
    And I click the 'OK' button
    And I run 'for i in $(seq 50); do [ -s answer.txt ] && break; sleep 0.1; done; cat answer.txt'
    Then the command output should contain 'Grace Hopper'

  Scenario: A form with a password
    Given I launch 'sh -c "zenity --forms --title=Account --text=\"New account\" --add-entry=Username --add-password=Password > answer.txt"'
    When I type 'ada' into the 'Username' field
    And I type 'n0t-shown' into the 'Password' field
    And I click 'OK'
    And I run 'for i in $(seq 50); do [ -s answer.txt ] && break; sleep 0.1; done; cat answer.txt'
    Then the command output should contain 'ada|n0t-shown'

  Scenario: A row chosen from a list
    Given I launch 'sh -c "zenity --list --title=Orders --column=Order --column=Customer 1001 \"Ada Lovelace\" 1002 \"Grace Hopper\" 1003 \"Alan Turing\" > answer.txt"'
    When I click 'Grace Hopper'
    And I click the 'OK' button
    And I run 'for i in $(seq 50); do [ -s answer.txt ] && break; sleep 0.1; done; cat answer.txt'
    Then the command output should contain '1002'

  Scenario: A question answered with No
    Given I launch 'sh -c "zenity --question --title=Confirm --text=\"Delete the draft?\"; echo answer \$? > answer.txt"'
    Then I should see 'Delete the draft?'
    When I click the 'No' button
    And I run 'for i in $(seq 50); do [ -s answer.txt ] && break; sleep 0.1; done; cat answer.txt'
    Then the command output should contain 'answer 1'

  Scenario: A file chosen in a file dialog
    Given I launch 'sh -c "zenity --file-selection --title=\"Pick a file\" --filename=/usr/share/X11/ > answer.txt"'
    Then I should see 'XErrorDB'
    When I double-click 'rgb.txt'
    And I run 'for i in $(seq 50); do [ -s answer.txt ] && break; sleep 0.1; done; cat answer.txt'
    Then the command output should contain '/usr/share/X11/rgb.txt'

  Scenario: A scale set with the keyboard
    Given I launch 'sh -c "zenity --scale --title=Volume --text=Volume --value=50 > answer.txt"'
    When I press 'Right' 3 times
    And I click 'OK'
    And I run 'for i in $(seq 50); do [ -s answer.txt ] && break; sleep 0.1; done; cat answer.txt'
    Then the command output should contain '53'

  Scenario: A text shown for reading
    Given I launch 'sh -c "zenity --text-info --title=Licence --filename=/etc/debian_version"'
    Then I should see 'Licence'
    And I should see the 'OK' button

  Scenario: A date picked from a calendar
    Given I launch 'sh -c "zenity --calendar --title=Deadline --text=\"Pick a day\" --day=15 --month=6 --year=2024 --date-format=%Y-%m-%d > answer.txt"'
    When I click 'OK'
    And I run 'for i in $(seq 50); do [ -s answer.txt ] && break; sleep 0.1; done; cat answer.txt'
    Then the command output should contain '2024-06-15'
